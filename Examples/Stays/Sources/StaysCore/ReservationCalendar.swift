import Foundation

/// A couch's calendar: which nights are taken, the runs of days to grey out, and whether a stay can be picked.
///
/// ```swift
/// let calendar = ReservationCalendar(reservedNights: nights, today: Day(Date()))
/// calendar.disabledRanges            // consecutive reserved nights merged
/// calendar.problem(with: DayRange(from: a, to: b))   // nil: selectable
/// ```
public struct ReservationCalendar: Sendable, Hashable {
    /// Nights held by a confirmed reservation.
    public var reservedNights: Set<Day>
    /// Today (UTC): earlier days cannot be picked.
    public var today: Day
    /// The longest stay.
    public var maxNights: Int

    /// A calendar of `reservedNights` as seen on `today`.
    public init(reservedNights: Set<Day>, today: Day, maxNights: Int = StayRules.maxNights) {
        self.reservedNights = reservedNights
        self.today = today
        self.maxNights = maxNights
    }

    /// The reserved nights as runs of consecutive nights, in order; each range's `to` is the day after its last
    /// night (so a range covers exactly the greyed nights).
    public var disabledRanges: [DayRange] { Self.ranges(of: reservedNights) }

    /// Consecutive days of `nights` merged into ranges, earliest first.
    public static func ranges(of nights: Set<Day>) -> [DayRange] {
        var ranges: [DayRange] = []
        for night in nights.sorted() {
            if let last = ranges.last, last.to == night {
                ranges[ranges.count - 1].to = night.next
            } else {
                ranges.append(DayRange(from: night, to: night.next))
            }
        }
        return ranges
    }

    /// Whether the night of `day` is taken.
    public func isReserved(_ day: Day) -> Bool { reservedNights.contains(day) }

    /// Whether `day` can start a stay: today or later, and its night free.
    public func canCheckIn(on day: Day) -> Bool { day >= today && !isReserved(day) }

    /// The last check-out day a stay starting `from` can pick: the first taken night after it, or `maxNights`
    /// later, whichever comes first; nil when `from` cannot start a stay.
    public func latestCheckOut(from: Day) -> Day? {
        guard canCheckIn(on: from) else { return nil }
        var day = from.next
        while from.days(until: day) < maxNights, !isReserved(day) { day = day.next }
        return day
    }

    /// Why `stay` cannot be reserved (judged here as the server will); nil when it can.
    public func problem(with stay: DayRange) -> StayProblem? {
        guard !stay.isEmpty else { return .empty }
        guard stay.from >= today else { return .past }
        guard stay.count <= maxNights else { return .tooLong }
        let taken = stay.nights.filter(isReserved)
        return taken.isEmpty ? nil : .overlap(taken)
    }

    /// Whether `stay` can be picked.
    public func isSelectable(_ stay: DayRange) -> Bool { problem(with: stay) == nil }
}

/// Why a range cannot be picked in a ``ReservationCalendar``.
public enum StayProblem: Sendable, Hashable, CustomStringConvertible {
    /// Check-out is not after check-in.
    case empty
    /// It starts before today.
    case past
    /// More than the longest stay.
    case tooLong
    /// These nights are taken.
    case overlap([Day])

    /// The refusal the server would answer (nil for ``empty``, which it refuses as invalid input).
    public var refusal: ReservationRefusal? {
        switch self {
        case .empty: nil
        case .past: .past
        case .tooLong: .tooLong
        case .overlap(let nights): .overlap(nights: nights)
        }
    }

    /// What to tell the user.
    public var description: String { refusal?.description ?? "Pick a check-out day after the check-in day." }
}
