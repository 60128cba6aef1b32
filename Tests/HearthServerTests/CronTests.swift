import Foundation
import HearthFunctions
import Testing

@testable import HearthServer

/// Parsing and `nextDate` of cron expressions, daylight-saving days included.
@Suite struct CronTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let lordHowe = TimeZone(identifier: "Australia/Lord_Howe")!
    static let utc = TimeZone(identifier: "UTC")!

    // MARK: Parsing

    @Test(arguments: [
        ("@yearly", "0 0 1 1 *"), ("@annually", "0 0 1 1 *"), ("@monthly", "0 0 1 * *"), ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"), ("@midnight", "0 0 * * *"), ("@hourly", "0 * * * *"), ("@Daily", "0 0 * * *"),
        ("0 0 * * 7", "0 0 * * 0"), ("0 0 * * sun", "0 0 * * 0"), ("0 0 * * 5-7", "0 0 * * 0,5,6"),
        ("0 0 * * FRI-SUN", "0 0 * * 5,6,0"), ("0 0 * jan-Mar Mon-fri", "0 0 * 1-3 1-5"),
        ("0 0 1 DEC *", "0 0 1 12 *"), ("*/15 * * * *", "0,15,30,45 * * * *"),
        ("10-50/10 * * * *", "10,20,30,40,50 * * * *"), ("5/20 * * * *", "5,25,45 * * * *"),
        ("*/60 * * * *", "0 * * * *"), ("0 */6 * * *", "0 0,6,12,18 * * *"), ("0 0 * * */2", "0 0 * * 0,2,4,6"),
        ("1,2-4,10-20/5 * * * *", "1,2,3,4,10,15,20 * * * *"), (" 0\t0  * *  * ", "0 0 * * *"),
        ("0-59 0-23 * * *", "* * * * *"),
    ])
    func equivalentSpellings(_ a: String, _ b: String) throws {
        #expect(try CronExpression(a) == CronExpression(b))
        #expect(try CronExpression(a).hashValue == CronExpression(b).hashValue)
    }

    @Test func restrictedDayFieldsAreNotStars() throws {
        // 1-31 restricts day-of-month (either-day rule with Monday), * does not (only Mondays).
        #expect(try CronExpression("0 0 1-31 * MON") != CronExpression("0 0 * * MON"))
        #expect(try CronExpression("0 0 1 * *") != CronExpression("0 0 1 * 0-7"))
    }

    @Test func descriptionIsTheExpressionAsWritten() throws {
        #expect(try CronExpression("@Daily").description == "@daily")
        #expect(try CronExpression(" 0\t*/5  * * MON-FRI").description == "0 */5 * * MON-FRI")
    }

    @Test(arguments: [
        ("", CronError.Code.fieldCount, nil as CronField?,
         "empty cron expression: expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily"),
        ("* * * *", .fieldCount, nil, "expected 5 fields (minute hour day-of-month month day-of-week), found 4"),
        ("0 0 * * * *", .fieldCount, nil,
         "expected 5 fields (minute hour day-of-month month day-of-week), found 6: a leading seconds field is not supported"),
        ("@reboot", .unknownMacro, nil,
         "unknown macro @reboot; expected one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"),
        ("61 * * * *", .outOfRange, .minute, "minute field: 61 is out of range 0–59"),
        ("* 24 * * *", .outOfRange, .hour, "hour field: 24 is out of range 0–23"),
        ("* * 0 * *", .outOfRange, .dayOfMonth, "day-of-month field: 0 is out of range 1–31"),
        ("* * 1-32 * *", .outOfRange, .dayOfMonth, "day-of-month field: 32 is out of range 1–31"),
        ("* * * 13 *", .outOfRange, .month, "month field: 13 is out of range 1–12"),
        ("* * * 0 *", .outOfRange, .month, "month field: 0 is out of range 1–12"),
        ("* * * * 8", .outOfRange, .dayOfWeek, "day-of-week field: 8 is out of range 0–7"),
        ("99999999999999999999 * * * *", .outOfRange, .minute, "minute field: 99999999999999999999 is out of range 0–59"),
        ("x * * * *", .invalidValue, .minute, "minute field: 'x' is not a number"),
        ("+5 * * * *", .invalidValue, .minute, "minute field: '+5' is not a number"),
        ("0 0 SUN * *", .invalidValue, .dayOfMonth, "day-of-month field: 'SUN' is not a number"),
        ("* * * FOO *", .invalidValue, .month, "month field: 'FOO' is not a number or a month name (JAN–DEC)"),
        ("* * * * MONDAY", .invalidValue, .dayOfWeek,
         "day-of-week field: 'MONDAY' is not a number or a weekday name (SUN–SAT)"),
        ("1,,2 * * * *", .invalidValue, .minute, "minute field: empty list element in '1,,2'"),
        ("5, * * * *", .invalidValue, .minute, "minute field: empty list element in '5,'"),
        ("-5 * * * *", .invalidValue, .minute, "minute field: '-5' is not a value, range or *"),
        ("/5 * * * *", .invalidValue, .minute, "minute field: '/5' is not a value, range or *"),
        ("5-2 * * * *", .invalidRange, .minute, "minute field: range 5-2 ends before it starts"),
        ("* * * * SAT-MON", .invalidRange, .dayOfWeek, "day-of-week field: range SAT-MON ends before it starts"),
        ("*/0 * * * *", .invalidStep, .minute, "minute field: step 0 must be at least 1"),
        ("*/x * * * *", .invalidStep, .minute, "minute field: step 'x' is not a number"),
        ("*/ * * * *", .invalidStep, .minute, "minute field: step '' is not a number"),
        ("*/5/2 * * * *", .invalidStep, .minute, "minute field: '*/5/2' has more than one step"),
        ("0 0 30 2 *", .neverFires, .dayOfMonth, "day-of-month field: 30 never occurs in FEB, so the schedule would never fire"),
        ("0 0 31 4,6,9,11 *", .neverFires, .dayOfMonth,
         "day-of-month field: 31 never occurs in APR, JUN, SEP, NOV, so the schedule would never fire"),
        ("0 0 30 2 */1", .neverFires, .dayOfMonth,
         "day-of-month field: 30 never occurs in FEB, so the schedule would never fire"),
        ("0 0 30,31 feb *", .neverFires, .dayOfMonth,
         "day-of-month field: 30 never occurs in FEB, so the schedule would never fire"),
    ])
    func rejects(_ text: String, _ code: CronError.Code, _ field: CronField?, _ message: String) {
        let error = #expect(throws: CronError.self) { try CronExpression(text) }
        #expect(error?.code == code)
        #expect(error?.field == field)
        #expect(error?.message == message)
        #expect(error?.description == message)
    }

    /// 30 FEB with a restricted weekday fires on Mondays (either-day rule); `*/30` has the 1st.
    @Test(arguments: ["0 0 29 2 *", "0 0 30 2 MON", "0 0 31 1-2 *", "0 0 */30 2 *"])
    func possibleDaysParse(_ text: String) throws {
        _ = try CronExpression(text)
    }

    @Test func errorTokenNamesTheOffendingText() {
        let error = #expect(throws: CronError.self) { try CronExpression("1-70 * * * *") }
        #expect(error?.token == "70")
        #expect(error?.code.description == "out-of-range")
    }

    // MARK: nextDate in UTC

    @Test(arguments: [
        ("*/15 * * * *", "2026-01-01T00:00:00Z", "2026-01-01T00:15:00Z"),
        ("*/15 * * * *", "2026-01-01T00:07:30Z", "2026-01-01T00:15:00Z"),
        ("*/15 * * * *", "2026-01-01T00:14:59.999Z", "2026-01-01T00:15:00Z"),
        ("* * * * *", "2026-01-01T00:00:00.5Z", "2026-01-01T00:01:00Z"),
        ("0 * * * *", "2026-12-31T23:30:00Z", "2027-01-01T00:00:00Z"),
        ("10-50/10 * * * *", "2026-05-05T10:50:00Z", "2026-05-05T11:10:00Z"),
        ("59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"),
        ("@yearly", "2026-06-15T12:00:00Z", "2027-01-01T00:00:00Z"),
        ("@monthly", "2026-01-31T00:00:00Z", "2026-02-01T00:00:00Z"),
        ("@weekly", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"),
        ("0 0 1 mar,SEP *", "2026-03-01T00:00:00Z", "2026-09-01T00:00:00Z"),
        // Month ends: the 31st skips the months without one.
        ("0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"),
        ("0 0 31 * *", "2026-04-01T00:00:00Z", "2026-05-31T00:00:00Z"),
        ("0 0 30 * *", "2026-01-30T00:00:00Z", "2026-03-30T00:00:00Z"),
        // Leap days: 2100 is not a leap year, 2000 was.
        ("0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"),
        ("0 0 29 2 *", "2096-02-29T00:00:00Z", "2104-02-29T00:00:00Z"),
        ("0 0 29 2 *", "1999-01-01T00:00:00Z", "2000-02-29T00:00:00Z"),
        ("0 0 28 2 *", "2028-02-28T00:00:00Z", "2029-02-28T00:00:00Z"),
        // Both day fields restricted: either matches (2026-11-06 is a Friday, 11-13 a Friday the 13th).
        ("0 0 13 * FRI", "2026-11-01T00:00:00Z", "2026-11-06T00:00:00Z"),
        ("0 12 1 * MON", "2026-05-31T00:00:00Z", "2026-06-01T12:00:00Z"),
        ("0 12 15 * MON", "2026-06-01T12:00:00Z", "2026-06-08T12:00:00Z"),
        ("0 12 3 * MON", "2026-06-01T12:00:00Z", "2026-06-03T12:00:00Z"),
        // Day of month written with *: both must match (odd days that are Mondays).
        ("0 0 */2 * MON", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"),
        ("0 0 */2 * MON", "2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z"),
        ("0 0 */2 * MON", "2026-01-19T00:00:00Z", "2026-02-09T00:00:00Z"),
        ("0 9 * * MON-FRI", "2026-01-02T10:00:00Z", "2026-01-05T09:00:00Z"),
        ("0 0 * * 7", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"),
        ("30 4 1,15 * *", "2026-01-15T04:30:00Z", "2026-02-01T04:30:00Z"),
        ("0 0 29 2 MON", "2026-01-01T00:00:00Z", "2026-02-02T00:00:00Z"),
    ])
    func nextDateInUTC(_ expression: String, _ after: String, _ expected: String) throws {
        let cron = try CronExpression(expression)
        #expect(cron.nextDate(after: try Self.date(after), in: Self.utc) == (try Self.date(expected)))
    }

    @Test func nextDateIsNilForTimesThatAreNotFinite() throws {
        let cron = try CronExpression("* * * * *")
        #expect(cron.nextDate(after: Date(timeIntervalSince1970: .infinity), in: Self.utc) == nil)
        #expect(cron.nextDate(after: Date(timeIntervalSince1970: .nan), in: Self.utc) == nil)
    }

    @Test func leapDayScheduleSteppedOverCenturies() throws {
        // Every result is a 29 February, strictly increasing, and 2100, 2200 and 2300 are skipped.
        let cron = try CronExpression("0 0 29 2 *")
        var t = try Self.date("2026-01-01T00:00:00Z")
        var years: [Int] = []
        for _ in 0..<100 {
            t = try #require(cron.nextDate(after: t, in: Self.berlin))
            years.append(Self.calendar(Self.berlin).component(.year, from: t))
        }
        #expect(years.first == 2028)
        #expect(!years.contains(2100) && !years.contains(2200) && !years.contains(2300) && years.contains(2400))
        #expect(zip(years, years.dropFirst()).allSatisfy { $1 - $0 == 4 || $1 - $0 == 8 })
    }

    /// The field-skipping search agrees with checking every minute, over a few days in UTC.
    @Test(arguments: [
        "* * * * *", "*/7 * * * *", "5 */3 * * *", "0 0 * * *", "15 10 * * 1-5", "0 0 13 * FRI", "0 0 */2 * MON",
        "45 23 28-31 * *", "0 12 1 * MON", "*/20 1-2 * * SUN",
    ])
    func agreesWithBruteForce(_ expression: String) throws {
        let cron = try CronExpression(expression)
        let start = try Self.date("2026-02-26T00:00:00Z")
        var cursor = start
        var found: [Date] = []
        while let next = cron.nextDate(after: cursor, in: Self.utc), next < start.addingTimeInterval(6 * 86_400) {
            found.append(next)
            cursor = next
        }
        let calendar = Self.calendar(Self.utc)
        var expected: [Date] = []
        for minute in 1..<(6 * 1440) {
            let t = start.addingTimeInterval(Double(minute * 60))
            let c = calendar.dateComponents([.minute, .hour, .day, .month, .weekday], from: t)
            if cron.matches(minute: c.minute!, hour: c.hour!, day: c.day!, month: c.month!, weekday: c.weekday! - 1) {
                expected.append(t)
            }
        }
        #expect(found == expected)
    }

    // MARK: Daylight-saving time

    /// Europe/Berlin, 2026-03-29: at 02:00 CET clocks go to 03:00 CEST (01:00 UTC).
    @Test func berlinSpringForward() throws {
        let day = (try Self.date("2026-03-28T23:00:00Z"), try Self.date("2026-03-29T22:00:00Z"))  // local midnight to midnight
        let hourly = try fires("0 * * * *", in: Self.berlin, from: day.0, to: day.1)
        #expect(hourly.count == 23)
        #expect(hourly.prefix(4) == ["2026-03-29T00:00:00+01:00", "2026-03-29T01:00:00+01:00",
                                     "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"])
        // Every-hour jobs skip the hour that does not exist: once per real hour.
        let halfPast = try fires("30 * * * *", in: Self.berlin, from: day.0, to: day.1)
        #expect(halfPast.count == 23)
        #expect(halfPast[1...2] == ["2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00"])
        #expect(try fires("*/15 * * * *", in: Self.berlin, from: day.0, to: day.1)[7...8]
            == ["2026-03-29T01:45:00+01:00", "2026-03-29T03:00:00+02:00"])
        // Other jobs fire once at the first instant after the gap.
        #expect(try fires("30 2 * * *", in: Self.berlin, from: try Self.date("2026-03-27T12:00:00Z"), to: try Self.date("2026-03-31T00:00:00Z"))
            == ["2026-03-28T02:30:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"])
        #expect(try fires("*/30 2 * * *", in: Self.berlin, from: day.0, to: day.1) == ["2026-03-29T03:00:00+02:00"])
        #expect(try fires("0 2,3 * * *", in: Self.berlin, from: day.0, to: day.1) == ["2026-03-29T03:00:00+02:00"])
        #expect(try fires("30 2,3 * * *", in: Self.berlin, from: day.0, to: day.1)
            == ["2026-03-29T03:00:00+02:00", "2026-03-29T03:30:00+02:00"])
        // Asked from inside the jump (an instant at 03:00 CEST), the gap's run is not repeated.
        let cron = try CronExpression("30 2 * * *")
        #expect(cron.nextDate(after: try Self.date("2026-03-29T01:00:00Z"), in: Self.berlin) == (try Self.date("2026-03-30T00:30:00Z")))
        #expect(cron.nextDate(after: try Self.date("2026-03-29T00:59:59Z"), in: Self.berlin) == (try Self.date("2026-03-29T01:00:00Z")))
    }

    /// Europe/Berlin, 2026-10-25: at 03:00 CEST clocks go back to 02:00 CET (01:00 UTC).
    @Test func berlinFallBack() throws {
        let day = (try Self.date("2026-10-24T22:00:00Z"), try Self.date("2026-10-25T23:00:00Z"))
        let hourly = try fires("0 * * * *", in: Self.berlin, from: day.0, to: day.1)
        #expect(hourly.count == 25)
        #expect(hourly[1...4] == ["2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00",
                                  "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"])
        #expect(try fires("*/30 * * * *", in: Self.berlin, from: day.0, to: day.1)[4...8]
            == ["2026-10-25T02:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-25T02:00:00+01:00",
                "2026-10-25T02:30:00+01:00", "2026-10-25T03:00:00+01:00"])
        // Other jobs fire at the first occurrence only.
        #expect(try fires("30 2 * * *", in: Self.berlin, from: day.0, to: try Self.date("2026-10-26T23:00:00Z"))
            == ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"])
        #expect(try fires("*/20 2 * * *", in: Self.berlin, from: day.0, to: day.1)
            == ["2026-10-25T02:00:00+02:00", "2026-10-25T02:20:00+02:00", "2026-10-25T02:40:00+02:00"])
        // Asked from inside the repeated hour: a daily job waits for tomorrow, an hourly one goes on.
        let inside = try Self.date("2026-10-25T01:10:00Z")  // 02:10 CET, the second time round
        #expect(try CronExpression("30 2 * * *").nextDate(after: inside, in: Self.berlin) == (try Self.date("2026-10-26T01:30:00Z")))
        #expect(try CronExpression("30 * * * *").nextDate(after: inside, in: Self.berlin) == (try Self.date("2026-10-25T01:30:00Z")))
        let firstTime = try Self.date("2026-10-25T00:10:00Z")  // 02:10 CEST
        #expect(try CronExpression("0 * * * *").nextDate(after: firstTime, in: Self.berlin) == (try Self.date("2026-10-25T01:00:00Z")))
    }

    /// America/New_York, 2026-03-08: at 02:00 EST clocks go to 03:00 EDT (07:00 UTC).
    @Test func newYorkSpringForward() throws {
        let day = (try Self.date("2026-03-08T05:00:00Z"), try Self.date("2026-03-09T04:00:00Z"))
        let hourly = try fires("0 * * * *", in: Self.newYork, from: day.0, to: day.1)
        #expect(hourly.count == 23)
        #expect(hourly[1...2] == ["2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00"])
        #expect(try fires("30 2 * * *", in: Self.newYork, from: day.0, to: day.1) == ["2026-03-08T03:00:00-04:00"])
        #expect(try fires("0 0 * * *", in: Self.newYork, from: day.0.addingTimeInterval(-1), to: day.1)
            == ["2026-03-08T00:00:00-05:00"])
    }

    /// America/New_York, 2026-11-01: at 02:00 EDT clocks go back to 01:00 EST (06:00 UTC).
    @Test func newYorkFallBack() throws {
        let day = (try Self.date("2026-11-01T04:00:00Z"), try Self.date("2026-11-02T05:00:00Z"))
        let hourly = try fires("0 * * * *", in: Self.newYork, from: day.0, to: day.1)
        #expect(hourly.count == 25)
        #expect(hourly[1...3] == ["2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00"])
        #expect(try fires("30 1 * * *", in: Self.newYork, from: day.0, to: try Self.date("2026-11-03T05:00:00Z"))
            == ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"])
        #expect(try fires("0 2 * * *", in: Self.newYork, from: day.0, to: day.1) == ["2026-11-01T02:00:00-05:00"])
    }

    @Test func utcHasNoDaylightSavingTime() throws {
        for (from, to) in [("2026-03-29T00:00:00Z", "2026-03-30T00:00:00Z"), ("2026-10-25T00:00:00Z", "2026-10-26T00:00:00Z")] {
            #expect(try fires("0 * * * *", in: Self.utc, from: Self.date(from), to: Self.date(to)).count == 24)
        }
        #expect(try fires("30 2 * * *", in: Self.utc, from: Self.date("2026-03-29T00:00:00Z"), to: Self.date("2026-03-30T00:00:00Z"))
            == ["2026-03-29T02:30:00Z"])
    }

    /// Australia/Lord_Howe moves by half an hour: on 2026-10-04 02:00 becomes 02:30 (+10:30 to +11:00).
    @Test func halfHourShift() throws {
        let day = (try Self.date("2026-10-03T13:30:00Z"), try Self.date("2026-10-04T13:00:00Z"))
        #expect(try fires("15 2 * * *", in: Self.lordHowe, from: day.0, to: day.1) == ["2026-10-04T02:30:00+11:00"])
        #expect(try fires("0 * * * *", in: Self.lordHowe, from: day.0, to: day.1)[1...2]
            == ["2026-10-04T01:00:00+10:30", "2026-10-04T03:00:00+11:00"])
        #expect(try fires("30 * * * *", in: Self.lordHowe, from: day.0, to: day.1)[1...2]
            == ["2026-10-04T01:30:00+10:30", "2026-10-04T02:30:00+11:00"])
    }

    @Test func leapDayInBerlin() throws {
        let cron = try CronExpression("0 0 29 2 *")
        #expect(cron.nextDate(after: try Self.date("2026-01-01T00:00:00Z"), in: Self.berlin) == (try Self.date("2028-02-28T23:00:00Z")))
    }

    // MARK: Helpers

    /// `2026-03-29T01:00:00Z`, optionally with fractional seconds.
    static func date(_ text: String) throws -> Date {
        try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains(".")))
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The fire times in [from, to), written in the zone's local time with its offset.
    func fires(_ expression: String, in zone: TimeZone, from: Date, to: Date) throws -> [String] {
        let cron = try CronExpression(expression)
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: zone)
        var result: [String] = []
        var cursor = from.addingTimeInterval(-1)
        while let next = cron.nextDate(after: cursor, in: zone), next < to {
            result.append(style.format(next))
            cursor = next
        }
        return result
    }
}

extension CronExpression {
    /// Direct field matching, for the brute-force comparison.
    func matches(minute: Int, hour: Int, day: Int, month: Int, weekday: Int) -> Bool {
        minutes & (1 << UInt64(minute)) != 0 && hours & (1 << UInt64(hour)) != 0
            && months & (1 << UInt64(month)) != 0 && matchesDay(day, weekday: weekday)
    }
}
