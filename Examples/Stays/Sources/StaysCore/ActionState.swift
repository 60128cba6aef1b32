import Foundation

/// Where a view model stands with one of its actions. (Not `Progress`: that name is Foundation's.)
public enum ActionState: Sendable, Equatable {
    /// Nothing asked yet.
    case idle
    /// Waiting for the answer.
    case working
    /// It failed; show the error.
    case failed(AppError)
    /// It succeeded.
    case done
}
