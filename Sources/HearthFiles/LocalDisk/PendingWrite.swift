import NIOPosix
import Synchronization

/// A write running on the thread pool, with the hashing of the same bytes beside it, awaited
/// later so that the next buffer can fill while the previous one goes to disk and is hashed.
final class PendingWrite: Sendable {
    private struct State {
        /// Jobs still running.
        var remaining: Int
        /// The first error any job threw.
        var error: (any Error)?
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private let state: Mutex<State>

    private init(jobs: Int) {
        state = Mutex(State(remaining: jobs))
    }

    /// Starts each of `jobs` on `pool` (they run concurrently) and returns at once.
    static func start(on pool: NIOThreadPool, _ jobs: [@Sendable () throws -> Void]) -> PendingWrite {
        let pending = PendingWrite(jobs: jobs.count)
        for job in jobs {
            pool.submit { work in
                switch work {
                case .active:
                    do {
                        try job()
                        pending.finish(nil)
                    } catch {
                        pending.finish(error)
                    }
                case .cancelled:
                    pending.finish(CancellationError())
                }
            }
        }
        return pending
    }

    /// Waits for every job to end (even if the task is cancelled: the buffer and file are in
    /// use until then) and rethrows the first error.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                guard state.remaining == 0 else {
                    state.waiter = continuation
                    return nil
                }
                return state.error.map { .failure($0) } ?? .success(())
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func finish(_ error: (any Error)?) {
        let (waiter, outcome) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, (any Error)?) in
            state.remaining -= 1
            if state.error == nil { state.error = error }
            guard state.remaining == 0, let waiter = state.waiter else { return (nil, nil) }
            state.waiter = nil
            return (waiter, state.error)
        }
        if let outcome { waiter?.resume(throwing: outcome) } else { waiter?.resume() }
    }
}
