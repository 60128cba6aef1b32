import Foundation
import Observation

/// Couch details: the couch, its rating summary, and its calendar with the reserved nights greyed out.
@MainActor @Observable
public final class CouchDetailsViewModel {
    /// The couch's id.
    public let couchID: String
    /// The couch; nil before the load.
    public private(set) var couch: Couch?
    /// Its ratings at a glance.
    public private(set) var summary: RatingSummary = .empty
    /// Its calendar (reserved nights as of today).
    public private(set) var calendar: ReservationCalendar
    /// Whether the signed-in user is its host (no "Reserve" button, but "Smart home").
    public private(set) var isHost = false
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The details of `couchID`.
    public init(couchID: String, _ useCases: UseCases) {
        self.couchID = couchID
        self.useCases = useCases
        calendar = ReservationCalendar(reservedNights: [], today: useCases.today)
    }

    /// The runs of days to grey out.
    public var disabledRanges: [DayRange] { calendar.disabledRanges }

    /// Loads the couch, its summary and its calendar; ``AppError/notFound`` when the couch is gone.
    public func load() async {
        state = .working
        do {
            guard let couch = try await useCases.repositories.couches.couch(couchID) else { throw AppError.notFound }
            let summary = try await useCases.repositories.ratings.summary(of: couchID)
            let calendar = try await useCases.calendar(of: couchID)
            let uid = await useCases.repositories.session.currentUserID()
            self.couch = couch
            self.summary = summary
            self.calendar = calendar
            isHost = couch.hostId == uid
            state = .done
        } catch {
            state = .failed(ErrorMapping.app(error))
        }
    }
}
