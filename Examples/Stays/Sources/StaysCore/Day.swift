import Foundation

/// A calendar day in UTC, written `YYYY-MM-DD` as the server stores it (`/reservedNights/{couchId}/{YYYY-MM-DD}`).
///
/// A night is named by the day it starts: the night of 2025-06-15 ends on the morning of 2025-06-16. Days are
/// counted from 1970-01-01 (day 0), so arithmetic never meets time zones or daylight saving.
///
/// ```swift
/// let arrival = Day("2025-02-28")!
/// arrival.adding(days: 1)          // 2025-03-01
/// Day("2024-02-29")!.isLeapDay      // true
/// Day("2025-02-29")                 // nil: not a real day
/// ```
public struct Day: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public let ordinal: Int

    /// The years a `Day` can name (four digits in `YYYY-MM-DD`).
    public static let years = 1...9999

    /// The day `ordinal` days after 1970-01-01.
    public init(ordinal: Int) { self.ordinal = ordinal }

    /// The day `year-month-day`; nil when there is no such day (2025-02-29, month 13, year 0).
    public init?(year: Int, month: Int, day: Int) {
        guard Self.years.contains(year), (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else { return nil }
        ordinal = Self.ordinal(year: year, month: month, day: day)
    }

    /// Parses exactly `YYYY-MM-DD` (four, two and two ASCII digits); nil for anything else or a day that does not exist.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        ordinal = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The year (1–9999 for days made from text; any for others).
    public var year: Int { civil.year }
    /// The month, 1–12.
    public var month: Int { civil.month }
    /// The day of the month, 1–31.
    public var day: Int { civil.day }

    /// Midnight UTC at the start of this day.
    public var start: Date { Date(timeIntervalSince1970: Double(ordinal) * 86_400) }

    /// Midnight UTC at the start of this day, in milliseconds since 1970 (how `endsAt` is stored).
    public var startMillis: Int64 { Int64(ordinal) * 86_400_000 }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int) -> Day { Day(ordinal: ordinal + days) }

    /// The day after.
    public var next: Day { adding(days: 1) }

    /// The day before.
    public var previous: Day { adding(days: -1) }

    /// Days from this day to `other` (negative when `other` is earlier).
    public func days(until other: Day) -> Int { other.ordinal - ordinal }

    /// Whether this is a 29 February.
    public var isLeapDay: Bool { month == 2 && day == 29 }

    /// Monday 1 … Sunday 7 (ISO 8601); 1970-01-01 was a Thursday.
    public var weekday: Int { ((ordinal % 7 + 7) % 7 + 3) % 7 + 1 }

    /// The first day of this day's month.
    public var firstOfMonth: Day { adding(days: 1 - day) }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (y, m, d) = civil
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// Earlier days first.
    public static func < (a: Day, b: Day) -> Bool { a.ordinal < b.ordinal }

    /// Decodes `YYYY-MM-DD`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = Day(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\"\(text)\" is not a YYYY-MM-DD day"))
        }
        self = day
    }

    /// Encodes `YYYY-MM-DD`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Whether `year` has a 29 February (Gregorian rules).
    public static func isLeap(year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// How many days `month` of `year` has.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year: year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil and civil-from-days (public domain algorithms, written out here).
    private static func ordinal(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private var civil: (year: Int, month: Int, day: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Days `from` up to, not including, `to`: a stay's nights (`to` is the check-out day), or a run of disabled nights.
///
/// ```swift
/// let stay = DayRange(from: Day("2025-12-30")!, to: Day("2026-01-02")!)
/// stay.nights.map(\.description)   // ["2025-12-30", "2025-12-31", "2026-01-01"]
/// ```
public struct DayRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first night (check-in day).
    public var from: Day
    /// The day after the last night (check-out day).
    public var to: Day

    /// The days `from..<to`; empty when `to` ≤ `from`.
    public init(from: Day, to: Day) {
        self.from = from
        self.to = to
    }

    /// How many nights (0 when `to` ≤ `from`).
    public var count: Int { max(0, from.days(until: to)) }

    /// Whether it holds no night.
    public var isEmpty: Bool { count == 0 }

    /// Every night, in order.
    public var nights: [Day] { (0..<count).map { from.adding(days: $0) } }

    /// Whether `night` is one of its nights.
    public func contains(_ night: Day) -> Bool { from <= night && night < to }

    /// Whether the two share a night.
    public func overlaps(_ other: DayRange) -> Bool { !isEmpty && !other.isEmpty && from < other.to && other.from < to }

    /// `from..<to`.
    public var description: String { "\(from)..<\(to)" }
}
