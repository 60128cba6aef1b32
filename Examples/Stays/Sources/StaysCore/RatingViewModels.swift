import Foundation
import Observation

/// Ratings: a couch's summary (average, count, distribution) and its ratings, newest first.
@MainActor @Observable
public final class RatingsViewModel {
    /// The couch's id.
    public let couchID: String
    /// The summary.
    public private(set) var summary: RatingSummary = .empty
    /// The ratings, newest first.
    public private(set) var ratings: [Rating] = []
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// The ratings of `couchID`.
    public init(couchID: String, _ useCases: UseCases) {
        self.couchID = couchID
        self.useCases = useCases
    }

    /// Loads summary and ratings.
    public func load() async {
        state = .working
        do {
            summary = try await useCases.repositories.ratings.summary(of: couchID)
            ratings = try await useCases.repositories.ratings.ratings(of: couchID)
            state = .done
        } catch {
            state = .failed(error)
        }
    }
}

/// New rating: stars and words for the user's ended stay; the screen says why it cannot rate when it cannot.
@MainActor @Observable
public final class NewRatingViewModel {
    /// The couch's id.
    public let couchID: String
    /// 1–5; 0 before a star is tapped.
    public var stars = 0
    /// Optional words.
    public var text = ""
    /// The stay being rated, once found.
    public private(set) var stay: Reservation?
    /// Why the user cannot rate; nil when they can (or before ``load()``).
    public private(set) var refusal: RatingRefusal?
    /// The submit's progress (and the load's failures).
    public private(set) var state: ActionState = .idle
    private let useCases: UseCases

    /// Rating `couchID`.
    public init(couchID: String, _ useCases: UseCases) {
        self.couchID = couchID
        self.useCases = useCases
    }

    /// Finds the stay to rate, or the reason there is none.
    public func load() async {
        do {
            stay = try await useCases.rateableStay(on: couchID)
            refusal = nil
        } catch {
            stay = nil
            if case .ratingRefused(let reason) = error { refusal = reason } else { state = .failed(error) }
        }
    }

    /// Whether "Submit" is enabled.
    public var canSubmit: Bool {
        stay != nil && Rating.starRange.contains(stars) && text.utf16.count <= Rating.maxTextLength && state != .working && state != .done
    }

    /// Sends the rating.
    public func submit() async {
        guard state != .working else { return }
        state = .working
        do {
            try await useCases.rate(couchID, stars: stars, text: text)
            state = .done
        } catch {
            if case .ratingRefused(let reason) = error { refusal = reason }
            state = .failed(error)
        }
    }
}
