import Foundation
import HearthCore

/// `/profiles/{uid}`: what the user told about themselves. A gender makes a verified account `signed`;
/// first name, last name and birth date on top make it `pro`.
public struct Profile: Codable, Sendable, Hashable {
    /// The genders the server accepts.
    public enum Gender: String, Codable, Sendable, Hashable, CaseIterable {
        /// Female.
        case female
        /// Male.
        case male
        /// Another gender.
        case other
        /// The user would rather not say (it still counts as answered).
        case unspecified
    }

    /// The user's gender.
    public var gender: Gender
    /// Given name, for `pro`.
    public var firstName: String?
    /// Family name, for `pro`.
    public var lastName: String?
    /// `YYYY-MM-DD`, a real past date (see ``isValidBirthDate(_:now:)``), for `pro`.
    public var birthDate: String?

    /// The earliest birth year accepted (as the server).
    public static let minBirthYear: Int64 = 1900
    /// The longest first or last name accepted.
    public static let maxNameLength = 100

    /// A profile value.
    public init(gender: Gender, firstName: String? = nil, lastName: String? = nil, birthDate: String? = nil) {
        self.gender = gender
        self.firstName = firstName
        self.lastName = lastName
        self.birthDate = birthDate
    }

    /// Whether the profile holds everything `pro` needs besides a verified account: both names (not blank)
    /// and a valid birth date as of `now`.
    public func isComplete(now: Date = Date()) -> Bool {
        Self.isValidName(firstName ?? "") && Self.isValidName(lastName ?? "") && birthDate.map { Self.isValidBirthDate($0, now: now) } == true
    }

    /// Whether `name`, trimmed, is not empty and has at most ``maxNameLength`` UTF-16 code units (how the rules,
    /// in JavaScript's terms, count `length`).
    public static func isValidName(_ name: String) -> Bool {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return !trimmed.isEmpty && trimmed.utf16.count <= maxNameLength
    }

    /// Whether `text` is a birth date the server accepts: exactly `YYYY-MM-DD` (ASCII digits), a day that exists in
    /// the Gregorian calendar (`2023-02-29` does not), in ``minBirthYear`` or later, and before today's UTC date at
    /// `now`.
    ///
    /// ```swift
    /// Profile.isValidBirthDate("1990-02-28")  // true
    /// Profile.isValidBirthDate("1990-2-28")   // false: not YYYY-MM-DD
    /// ```
    public static func isValidBirthDate(_ text: String, now: Date = Date()) -> Bool {
        guard let day = dayNumber(of: text) else { return false }
        let today = Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))
        return day < today
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date, nil if it is not one.
    static func dayNumber(of text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for b in bytes[range] {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        guard year >= minBirthYear, (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        return CivilDate.days(year: year, month: month, day: day)
    }
}
