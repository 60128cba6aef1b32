import Foundation

/// What went wrong, in a form a screen can show (every repository and use case throws this).
public enum AppError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in.
    case notSignedIn
    /// The server could not be reached.
    case offline
    /// The server's rules refused the read or write.
    case permissionDenied
    /// What was asked for does not exist (a wish, a reservation of the user's).
    case notFound
    /// What the user typed cannot be used; the message says why.
    case invalidInput(String)
    /// The email and password do not match an account.
    case wrongCredentials
    /// An account with this email exists already.
    case emailInUse
    /// Someone reserved this wish first (reservations are exclusive).
    case alreadyReserved
    /// The wish is the user's own: nobody reserves their own wish.
    case ownWish
    /// The wish was received already: it cannot be reserved any more.
    case alreadyReceived
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
        case .alreadyReserved: "Someone reserved this gift already. Pick another one."
        case .ownWish: "This is your own wish."
        case .alreadyReceived: "This wish was received already."
        case .failed(let message): "Something went wrong: \(message)"
        }
    }
}
