import Foundation
import StaysCore
import Testing

/// The calendar helper: reserved nights → greyed ranges, and which stays can be picked.
@Suite("Stays calendar")
struct CalendarTests {
    func nights(_ texts: String...) -> Set<Day> { Set(texts.map { day($0) }) }

    @Test func consecutiveNightsMergeIntoOneRangeEndingTheDayAfter() {
        let calendar = ReservationCalendar(
            reservedNights: nights("2025-06-20", "2025-06-21", "2025-06-22", "2025-06-25", "2025-06-27", "2025-06-28"), today: day("2025-06-15"))
        #expect(calendar.disabledRanges == [stay("2025-06-20", "2025-06-23"), stay("2025-06-25", "2025-06-26"), stay("2025-06-27", "2025-06-29")])
        #expect(ReservationCalendar(reservedNights: [], today: day("2025-06-15")).disabledRanges.isEmpty)
    }

    @Test func rangesRunAcrossMonthEndsLeapDaysAndTheYearEnd() {
        #expect(ReservationCalendar.ranges(of: nights("2025-01-31", "2025-02-01", "2025-02-02")) == [stay("2025-01-31", "2025-02-03")])
        #expect(ReservationCalendar.ranges(of: nights("2024-02-28", "2024-02-29", "2024-03-01")) == [stay("2024-02-28", "2024-03-02")])
        // 2025 has no 29 February: the 28th and 1 March are consecutive.
        #expect(ReservationCalendar.ranges(of: nights("2025-02-28", "2025-03-01")) == [stay("2025-02-28", "2025-03-02")])
        // 2024 has: the 28th and 1 March are not.
        #expect(ReservationCalendar.ranges(of: nights("2024-02-28", "2024-03-01")) == [stay("2024-02-28", "2024-02-29"), stay("2024-03-01", "2024-03-02")])
        #expect(ReservationCalendar.ranges(of: nights("2025-12-31", "2026-01-01", "2025-12-30")) == [stay("2025-12-30", "2026-01-02")])
        #expect(ReservationCalendar.ranges(of: nights("2025-12-31", "2026-01-02")) == [stay("2025-12-31", "2026-01-01"), stay("2026-01-02", "2026-01-03")])
        // Every greyed night is in exactly one range, and no free night is.
        let reserved = nights("2025-12-29", "2025-12-31", "2026-01-01", "2026-02-28", "2026-03-01")
        let ranges = ReservationCalendar.ranges(of: reserved)
        for offset in 0..<90 {
            let night = day("2025-12-20").adding(days: offset)
            #expect(ranges.filter { $0.contains(night) }.count == (reserved.contains(night) ? 1 : 0), "\(night)")
        }
    }

    @Test func aStayIsSelectableOnlyWhenFreeFromTodayAndAtMostThirtyNights() {
        let calendar = ReservationCalendar(reservedNights: nights("2025-06-20", "2025-06-21", "2025-06-22"), today: day("2025-06-15"))
        #expect(calendar.isSelectable(stay("2025-06-15", "2025-06-20")))  // today, and checking out as the next guest arrives
        #expect(calendar.isSelectable(stay("2025-06-23", "2025-06-25")))  // checking in as the last guest leaves
        #expect(calendar.problem(with: stay("2025-06-19", "2025-06-21")) == .overlap([day("2025-06-20")]))
        #expect(calendar.problem(with: stay("2025-06-10", "2025-07-01")) == .past)
        #expect(calendar.problem(with: stay("2025-06-14", "2025-06-16")) == .past)
        #expect(calendar.problem(with: stay("2025-06-18", "2025-06-18")) == .empty)
        #expect(calendar.problem(with: stay("2025-06-18", "2025-06-17")) == .empty)
        #expect(calendar.problem(with: stay("2025-06-23", "2025-07-23")) == nil)  // 30 nights
        #expect(calendar.problem(with: stay("2025-06-23", "2025-07-24")) == .tooLong)  // 31
        #expect(calendar.problem(with: stay("2025-06-16", "2025-06-25")) == .overlap(Array(calendar.reservedNights).sorted()))
        #expect(StayProblem.overlap([day("2025-06-20")]).refusal == .overlap(nights: [day("2025-06-20")]))
        #expect(StayProblem.empty.refusal == nil)
    }

    @Test func checkOutStopsAtTheNextTakenNightOrThirtyNights() {
        let calendar = ReservationCalendar(reservedNights: nights("2025-06-20", "2025-12-31"), today: day("2025-06-15"))
        #expect(calendar.latestCheckOut(from: day("2025-06-15")) == day("2025-06-20"))
        #expect(calendar.latestCheckOut(from: day("2025-06-19")) == day("2025-06-20"))
        #expect(calendar.latestCheckOut(from: day("2025-06-20")) == nil)  // its night is taken
        #expect(calendar.latestCheckOut(from: day("2025-06-14")) == nil)  // yesterday
        #expect(calendar.latestCheckOut(from: day("2025-06-21")) == day("2025-07-21"))  // 30 nights
        #expect(calendar.latestCheckOut(from: day("2025-12-20")) == day("2025-12-31"))
        #expect(calendar.latestCheckOut(from: day("2026-01-01")) == day("2026-01-31"))
        #expect(calendar.canCheckIn(on: day("2025-06-15")) && !calendar.canCheckIn(on: day("2025-06-20")))
    }
}
