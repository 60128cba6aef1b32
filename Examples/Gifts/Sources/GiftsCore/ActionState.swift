import Foundation

/// Where a view model stands with one of its actions (a load, a save, a reservation).
public enum ActionState: Sendable, Equatable {
    /// Nothing asked yet.
    case idle
    /// Waiting for the answer.
    case working
    /// It failed; the screen shows the error.
    case failed(AppError)
    /// It succeeded.
    case done
}
