import Foundation
import StaysCore
import Testing

/// `Day`: `YYYY-MM-DD` parsing and formatting, UTC, and arithmetic across months, leap days and years.
@Suite("Stays days")
struct DayTests {
    @Test(arguments: ["1970-01-01", "2024-02-29", "2000-02-29", "2025-12-31", "0001-01-01", "9999-12-31", "2025-06-15"])
    func aValidDayRoundTrips(_ text: String) throws {
        let parsed = try #require(Day(text))
        #expect(parsed.description == text)
        #expect(Day(ordinal: parsed.ordinal) == parsed)
    }

    @Test(arguments: [
        "2025-02-29", "1900-02-29", "2025-04-31", "2025-13-01", "2025-00-10", "2025-01-00", "0000-01-01", "2025-1-01", "2025-01-1",
        "25-01-01", "2025/01/01", "2025-01-01T00:00", " 2025-01-01", "2025-01-0a", "", "２０２５-01-01", "+025-01-01",
    ])
    func anInvalidDayIsRejected(_ text: String) {
        #expect(Day(text) == nil)
    }

    @Test func componentsAndOrdinalsAgreeWithTheCalendar() throws {
        #expect(day("1970-01-01").ordinal == 0)
        #expect(day("1969-12-31").ordinal == -1)
        #expect(day("2000-03-01").ordinal == 11_017)
        let leap = day("2024-02-29")
        #expect((leap.year, leap.month, leap.day) == (2024, 2, 29))
        #expect(leap.isLeapDay && !day("2024-02-28").isLeapDay)
        #expect(Day(year: 2023, month: 2, day: 29) == nil)
        #expect(Day(year: 2400, month: 2, day: 29) == day("2400-02-29"))
        #expect(Day.daysIn(month: 2, year: 1900) == 28 && Day.daysIn(month: 2, year: 2000) == 29 && Day.daysIn(month: 9, year: 2025) == 30)
        // 1970-01-01 was a Thursday, 2025-06-15 a Sunday.
        #expect(day("1970-01-01").weekday == 4 && day("2025-06-15").weekday == 7 && day("2025-06-16").weekday == 1)
        #expect(day("1969-12-29").weekday == 1)
        #expect(day("2025-06-15").firstOfMonth == day("2025-06-01"))
    }

    @Test func arithmeticCrossesMonthsLeapDaysAndYears() {
        #expect(day("2025-01-31").next == day("2025-02-01"))
        #expect(day("2024-02-28").next == day("2024-02-29"))
        #expect(day("2024-02-29").next == day("2024-03-01"))
        #expect(day("2025-02-28").next == day("2025-03-01"))
        #expect(day("2025-12-31").next == day("2026-01-01"))
        #expect(day("2026-01-01").previous == day("2025-12-31"))
        #expect(day("2024-03-01").previous == day("2024-02-29"))
        #expect(day("2025-06-15").adding(days: 30) == day("2025-07-15"))
        #expect(day("2025-06-15").adding(days: -365) == day("2024-06-15"))  // 2025 has no leap day before June 15
        #expect(day("2024-01-01").days(until: day("2025-01-01")) == 366)
        #expect(day("2025-01-01").days(until: day("2026-01-01")) == 365)
        #expect(day("2025-03-01").days(until: day("2025-02-01")) == -28)
        #expect(day("2025-06-14") < day("2025-06-15") && day("2025-12-31") < day("2026-01-01"))
    }

    @Test func dayOfADateIsItsUTCDay() {
        #expect(Day(Date(timeIntervalSince1970: 1_749_988_800)) == day("2025-06-15"))  // 12:00 UTC
        #expect(Day(Date(timeIntervalSince1970: 1_749_945_600)) == day("2025-06-15"))  // 00:00 UTC
        #expect(Day(Date(timeIntervalSince1970: 1_749_945_599)) == day("2025-06-14"))  // 23:59:59 UTC the day before
        #expect(Day(Date(timeIntervalSince1970: -1)) == day("1969-12-31"))
        #expect(day("2025-06-04").startMillis == 1_748_995_200_000)
        #expect(day("2025-06-04").start == Date(timeIntervalSince1970: 1_748_995_200))
    }

    @Test func daysEncodeAsTheirTextAndRefuseOtherText() throws {
        struct Box: Codable, Equatable { var from: Day }
        let data = try JSONEncoder().encode(Box(from: day("2024-02-29")))
        #expect(String(decoding: data, as: UTF8.self) == #"{"from":"2024-02-29"}"#)
        #expect(try JSONDecoder().decode(Box.self, from: data) == Box(from: day("2024-02-29")))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Box.self, from: Data(#"{"from":"2025-02-29"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Box.self, from: Data(#"{"from":20250101}"#.utf8)) }
    }

    @Test func aRangeHoldsItsNightsWithCheckOutExcluded() {
        let yearEnd = stay("2025-12-30", "2026-01-02")
        #expect(yearEnd.nights.map(\.description) == ["2025-12-30", "2025-12-31", "2026-01-01"])
        #expect(yearEnd.count == 3 && !yearEnd.isEmpty)
        #expect(yearEnd.contains(day("2026-01-01")) && !yearEnd.contains(day("2026-01-02")) && !yearEnd.contains(day("2025-12-29")))
        #expect(stay("2025-06-10", "2025-06-10").isEmpty && stay("2025-06-10", "2025-06-09").count == 0)
        #expect(stay("2025-06-10", "2025-06-09").nights.isEmpty)
        // Back to back: check-out day = the next check-in day.
        #expect(!stay("2025-06-01", "2025-06-04").overlaps(stay("2025-06-04", "2025-06-06")))
        #expect(stay("2025-06-01", "2025-06-05").overlaps(stay("2025-06-04", "2025-06-06")))
        #expect(stay("2025-06-01", "2025-06-10").overlaps(stay("2025-06-04", "2025-06-05")))
        #expect(!stay("2025-06-01", "2025-06-10").overlaps(stay("2025-06-04", "2025-06-04")))
        #expect(stay("2024-02-28", "2024-03-01").nights == [day("2024-02-28"), day("2024-02-29")])
    }
}
