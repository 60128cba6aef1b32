/// Proleptic Gregorian calendar arithmetic on wall-clock time, counted as "local seconds": the
/// seconds since 1970-01-01 00:00 of a clock on the wall, with no time zone. Pure integer
/// arithmetic, so matching cron fields never goes through a time zone (which is only consulted
/// to turn a wall time into an instant).
enum WallClock {
    static let secondsPerDay = 86_400

    /// Days since 1970-01-01 of a civil date (days-from-civil on a March-based year).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count (the inverse of `days(year:month:day:)`).
    static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday).
    static func weekday(days: Int) -> Int {
        ((days + 4) % 7 + 7) % 7
    }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Rounds down to a multiple of `unit` (also for negative values).
    static func floor(_ value: Int, to unit: Int) -> Int {
        let r = value % unit
        return r < 0 ? value - r - unit : value - r
    }
}
