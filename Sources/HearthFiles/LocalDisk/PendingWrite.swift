import NIOPosix
import Synchronization

/// A write running on the thread pool that is awaited later, so that the next buffer can fill
/// (and be hashed) while the previous one goes to disk.
final class PendingWrite: Sendable {
    private enum State {
        case running
        case waiting(CheckedContinuation<Void, any Error>)
        case finished((any Error)?)
    }

    private let state = Mutex(State.running)

    private init() {}

    /// Starts `body` on `pool` and returns at once.
    static func start(on pool: NIOThreadPool, _ body: @escaping @Sendable () throws -> Void) -> PendingWrite {
        let write = PendingWrite()
        pool.submit { work in
            switch work {
            case .active:
                do {
                    try body()
                    write.finish(nil)
                } catch {
                    write.finish(error)
                }
            case .cancelled:
                write.finish(CancellationError())
            }
        }
        return write
    }

    /// Waits for the write to end (even if the task is cancelled: the buffer and file are in
    /// use until then) and rethrows its error.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .running, .waiting:
                    state = .waiting(continuation)
                    return nil
                case .finished(let error):
                    return error.map { .failure($0) } ?? .success(())
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func finish(_ error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            defer { state = .finished(error) }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume() }
    }
}
