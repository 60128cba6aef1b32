import Foundation

/// Follows a live stream on the main actor: each value goes to `value`, a failure (as an `AppError`) to `failure`.
/// Cancel the task to stop.
@MainActor
func follow<T: Sendable>(
    _ stream: AsyncThrowingStream<T, any Error>, value: @escaping @MainActor (T) -> Void, failure: @escaping @MainActor (AppError) -> Void
) -> Task<Void, Never> {
    Task {
        do {
            for try await next in stream { value(next) }
        } catch {
            failure(ErrorMapping.app(error))
        }
    }
}
