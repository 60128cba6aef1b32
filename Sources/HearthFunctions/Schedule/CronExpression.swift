/// A standard five-field cron schedule: `minute hour day-of-month month day-of-week`.
///
/// ```swift
/// let nightly = try CronExpression("30 2 * * *")
/// let next = nightly.nextDate(after: .now, in: TimeZone(identifier: "Europe/Berlin")!)
/// ```
///
/// Each field takes `*`, a number, a range `a-b`, a step `*/n`, `a-b/n` or `a/n` (from `a` to the
/// field's end), or a comma-separated list of those. Months take `JAN`–`DEC` and weekdays
/// `SUN`–`SAT` (any case); day-of-week 0 and 7 are both Sunday. The macros `@yearly`
/// (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly` stand for their
/// usual five fields. As in classic cron, when both day-of-month and day-of-week are restricted
/// (neither starts with `*`), a day matches if *either* matches: `0 0 1 * MON` fires on the 1st
/// and on every Monday.
///
/// Two expressions are equal when they select the same times, whatever their spelling
/// (`@daily == 0 0 * * *`); ``description`` is the expression as written.
/// See `docs/scheduling.md` for time zones and daylight-saving time.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// One bit per accepted value (bit n = value n).
    package let minutes: UInt64
    package let hours: UInt64
    let daysOfMonth: UInt64
    package let months: UInt64
    /// Bit 0 = Sunday ... bit 6 = Saturday (7 is folded into 0 when parsing).
    let daysOfWeek: UInt64
    /// Whether both day fields are restricted (neither starts with `*`), so that a day matching
    /// either one matches; otherwise a day must match both.
    let matchesEitherDay: Bool
    /// The expression as written, fields separated by single spaces.
    public let description: String

    /// Whether the hour field selects all 24 hours: such a job follows real time across
    /// daylight-saving changes instead of the calendar (see ``nextDate(after:in:)``).
    var runsEveryHour: Bool { hours == CronExpression.allHours }

    static let allHours: UInt64 = (1 << 24) - 1

    /// Whether the calendar day matches the day fields, with the classic either-day rule.
    package func matchesDay(_ day: Int, weekday: Int) -> Bool {
        let dom = daysOfMonth & (1 << UInt64(day)) != 0
        let dow = daysOfWeek & (1 << UInt64(weekday)) != 0
        return matchesEitherDay ? dom || dow : dom && dow
    }

    /// Two expressions are equal when they match the same times.
    public static func == (a: CronExpression, b: CronExpression) -> Bool {
        a.minutes == b.minutes && a.hours == b.hours && a.daysOfMonth == b.daysOfMonth && a.months == b.months
            && a.daysOfWeek == b.daysOfWeek && a.matchesEitherDay == b.matchesEitherDay
    }

    /// Hashes the times the expression matches.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(minutes)
        hasher.combine(hours)
        hasher.combine(daysOfMonth)
        hasher.combine(months)
        hasher.combine(daysOfWeek)
        hasher.combine(matchesEitherDay)
    }
}

extension UInt64 {
    /// The smallest set bit at or above `index`, if any.
    func firstSetBit(from index: Int) -> Int? {
        guard index < 64 else { return nil }
        let rest = self & (~0 << UInt64(index))
        return rest == 0 ? nil : rest.trailingZeroBitCount
    }
}
