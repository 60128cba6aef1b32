import HearthCore

/// Proleptic Gregorian calendar arithmetic on wall-clock time, counted as "local seconds": the
/// seconds since 1970-01-01 00:00 of a clock on the wall, with no time zone. Pure integer
/// arithmetic, so matching cron fields never goes through a time zone (which is only consulted
/// to turn a wall time into an instant).
package enum WallClock {
    static let secondsPerDay = 86_400

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        Int(CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day)))
    }

    /// The civil date of a day count (the inverse of `days(year:month:day:)`).
    static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let (y, m, d) = CivilDate.civil(days: Int64(days))
        return (Int(y), Int(m), Int(d))
    }

    /// 0 = Sunday ... 6 = Saturday.
    static func weekday(days: Int) -> Int {
        Int(CivilDate.dayOfWeek(days: Int64(days))) % 7
    }

    static func isLeapYear(_ year: Int) -> Bool { CivilDate.isLeap(Int64(year)) }

    static func daysInMonth(year: Int, month: Int) -> Int { Int(CivilDate.daysInMonth(year: Int64(year), month: Int64(month))) }

    /// Rounds down to a multiple of `unit` (also for negative values).
    static func floor(_ value: Int, to unit: Int) -> Int {
        let r = value % unit
        return r < 0 ? value - r - unit : value - r
    }
}
