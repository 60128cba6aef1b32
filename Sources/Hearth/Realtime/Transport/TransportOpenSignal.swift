import Synchronization

/// The outcome of opening a socket: one task waits for it, the socket's callbacks fulfil it. The
/// first outcome wins; later ones are ignored.
final class TransportOpenSignal: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Void, any Error>?)
        case opened
        case failed(any Error)
    }

    private let state = Mutex<State>(.waiting(nil))

    /// The socket is open.
    func succeed() { resolve(nil) }

    /// The socket could not be opened (or closed before it was).
    func fail(_ error: any Error) { resolve(error) }

    private func resolve(_ error: (any Error)?) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = error.map { .failed($0) } ?? .opened
            return waiter
        }
        if let error {
            waiter?.resume(throwing: error)
        } else {
            waiter?.resume()
        }
    }

    /// Waits for the outcome. Cancelling the waiting task fails it and calls `onCancel` (to abort
    /// the connection attempt). One waiter.
    func wait(onCancel: @escaping @Sendable () -> Void) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .opened: return .success(())
                    case .failed(let error): return .failure(error)
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            self.fail(CancellationError())
            onCancel()
        }
    }
}
