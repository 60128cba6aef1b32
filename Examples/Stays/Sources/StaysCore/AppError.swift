import Foundation

/// What went wrong, in a form a screen can show (every repository and use case throws this).
public enum AppError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in.
    case notSignedIn
    /// The server could not be reached.
    case offline
    /// The server's rules refused the read or write.
    case permissionDenied
    /// What was asked for does not exist (a couch, a reservation).
    case notFound
    /// What the user typed cannot be used; the message says why.
    case invalidInput(String)
    /// The email and password do not match an account.
    case wrongCredentials
    /// An account with this email exists already.
    case emailInUse
    /// The geocoder found nothing at this address.
    case addressNotFound
    /// An outside service (geocoder, openHAB, weather) is down.
    case unavailable(ExternalService)
    /// `reserve` refused the stay, and why.
    case reservationRefused(ReservationRefusal)
    /// The reservation was cancelled before.
    case alreadyCancelled
    /// The user cannot rate this couch (now), and why.
    case ratingRefused(RatingRefusal)
    /// A photo was uploaded but the server did not index it in time.
    case photoNotProcessed
    /// Anything else, with a technical message.
    case failed(String)

    /// What to tell the user.
    public var description: String {
        switch self {
        case .notSignedIn: "Please sign in first."
        case .offline: "You are offline. Try again when you are back online."
        case .permissionDenied: "You are not allowed to do that."
        case .notFound: "This no longer exists."
        case .invalidInput(let message): message
        case .wrongCredentials: "The email or password is wrong."
        case .emailInUse: "An account with this email exists already. Sign in instead."
        case .addressNotFound: "We could not find this place. Check the address."
        case .unavailable(let service): service.description
        case .reservationRefused(let refusal): refusal.description
        case .alreadyCancelled: "This reservation was cancelled already."
        case .ratingRefused(let refusal): refusal.description
        case .photoNotProcessed: "The photo was uploaded but is not ready yet. Try again in a moment."
        case .failed(let message): "Something went wrong: \(message)"
        }
    }
}

/// The outside services the server relies on.
public enum ExternalService: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The address → position service behind `geocode`.
    case geocoder
    /// The host's openHAB.
    case smartHome
    /// The weather service the watcher reads.
    case weather

    /// What to tell the user.
    public var description: String {
        switch self {
        case .geocoder: "Address search is unavailable right now. Try again later."
        case .smartHome: "The smart home does not answer right now. Try again later."
        case .weather: "The weather service is unavailable right now. Try again later."
        }
    }
}

/// Why `reserve` refused a stay (`failed-precondition` with `details.reason`).
public enum ReservationRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// These nights are taken (`overlap`, `details.nights`).
    case overlap(nights: [Day])
    /// More guests than the couch sleeps (`capacity`).
    case capacity
    /// The stay starts before today, UTC (`past`).
    case past
    /// More than ``StayRules/maxNights`` nights (`tooLong`).
    case tooLong
    /// Hosts do not reserve their own couch (`ownCouch`).
    case ownCouch

    /// What to tell the user.
    public var description: String {
        switch self {
        case .overlap(let nights):
            nights.isEmpty
                ? "Some of these nights are taken already. Pick other dates."
                : "These nights are taken already: \(nights.map(\.description).joined(separator: ", ")). Pick other dates."
        case .capacity: "This couch does not sleep that many guests."
        case .past: "The stay cannot start in the past."
        case .tooLong: "A stay is at most \(StayRules.maxNights) nights."
        case .ownCouch: "This is your own couch."
        }
    }
}

/// Why the user cannot rate a couch (checked before writing; the server's rules refuse the same).
public enum RatingRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The user has not stayed there (no reservation of theirs for this couch).
    case noStay
    /// The stay has not ended yet.
    case notEnded
    /// The reservation was cancelled.
    case cancelled
    /// This stay is rated already: another rating needs another stay.
    case alreadyRated

    /// What to tell the user.
    public var description: String {
        switch self {
        case .noStay: "Only guests who stayed here can rate this couch."
        case .notEnded: "You can rate your stay once it is over."
        case .cancelled: "This stay was cancelled."
        case .alreadyRated: "You rated this stay already."
        }
    }
}

/// The server's limits on a stay (`reserve`).
public enum StayRules {
    /// The most nights one reservation covers.
    public static let maxNights = 30
}
