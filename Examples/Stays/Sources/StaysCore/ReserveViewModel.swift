import Foundation
import Observation

/// Reserve: pick check-in and check-out in the calendar (reserved nights greyed), the number of guests, and book.
/// A booking schedules a reminder for the first day; a refusal shows its reason.
@MainActor @Observable
public final class ReserveViewModel {
    /// The screen's state.
    public enum State: Sendable, Equatable {
        /// Picking.
        case idle
        /// The server is booking.
        case reserving
        /// Booked.
        case reserved(Booking)
        /// Refused, and why.
        case refused(ReservationRefusal)
        /// The booking did not reach a verdict, or the input was wrong.
        case failed(AppError)
    }

    /// The couch.
    public let couch: Couch
    /// Its calendar.
    public private(set) var calendar: ReservationCalendar
    /// The first night, once picked.
    public private(set) var checkIn: Day?
    /// The check-out day, once picked.
    public private(set) var checkOut: Day?
    /// How many guests (1 … the couch's capacity).
    public var guests = 1
    /// The screen's state.
    public private(set) var state: State = .idle
    private let useCases: UseCases

    /// Reserving `couch`.
    public init(couch: Couch, _ useCases: UseCases) {
        self.couch = couch
        self.useCases = useCases
        calendar = ReservationCalendar(reservedNights: [], today: useCases.today)
    }

    /// Loads the reserved nights.
    public func load() async {
        do {
            calendar = try await useCases.calendar(of: couch.id)
        } catch {
            state = .failed(error)
        }
    }

    /// The stay picked, when both days are.
    public var stay: DayRange? {
        guard let checkIn, let checkOut else { return nil }
        return DayRange(from: checkIn, to: checkOut)
    }

    /// Why the current choice cannot be booked; nil when it can.
    public var problem: String? {
        guard let stay else { return "Pick your check-in and check-out days." }
        if let problem = calendar.problem(with: stay) { return problem.description }
        if guests < 1 { return "At least one guest stays." }
        if guests > couch.capacity { return ReservationRefusal.capacity.description }
        return nil
    }

    /// Whether "Reserve" is enabled.
    public var canReserve: Bool { problem == nil && state != .reserving }

    /// Whether `day` can be tapped now: a check-in day, or (after one) a check-out day up to the next taken night.
    public func isEnabled(_ day: Day) -> Bool {
        if let checkIn, checkOut == nil, day > checkIn, let latest = calendar.latestCheckOut(from: checkIn), day <= latest { return true }
        return calendar.canCheckIn(on: day)
    }

    /// A tap on `day`: sets check-in, then check-out (up to the next taken night and the longest stay); any other
    /// tap starts a new choice at `day` when it can be a check-in day.
    public func select(_ day: Day) {
        if let checkIn, checkOut == nil, day > checkIn, let latest = calendar.latestCheckOut(from: checkIn), day <= latest {
            checkOut = day
            return
        }
        guard calendar.canCheckIn(on: day) else { return }
        checkIn = day
        checkOut = nil
    }

    /// Clears the choice.
    public func clear() {
        checkIn = nil
        checkOut = nil
        if state != .reserving { state = .idle }
    }

    /// Books the stay. After an overlap the calendar is loaded again (someone was faster).
    public func reserve() async {
        guard state != .reserving else { return }
        guard let stay else {
            state = .failed(.invalidInput("Pick your check-in and check-out days."))
            return
        }
        state = .reserving
        do {
            state = .reserved(try await useCases.reserve(couch, stay: stay, guests: guests))
        } catch {
            if case .reservationRefused(let refusal) = error {
                state = .refused(refusal)
                if case .overlap = refusal, let fresh = try? await useCases.calendar(of: couch.id) { calendar = fresh }
            } else {
                state = .failed(error)
            }
        }
    }
}
