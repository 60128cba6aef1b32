import GRDB
import Synchronization

/// Runs concurrent write transactions together: whoever finds no commit in progress becomes the
/// leader and commits everything queued so far in one SQLite transaction (one sync for many
/// writers), each writer's work in its own savepoint so one failure rolls back only that work.
/// A writer's call returns only after the commit that holds its work.
final class GroupCommitter: Sendable {
    private struct Entry: Sendable {
        let apply: @Sendable (GRDB.Database) -> Void
        let outcome: Outcome
    }

    /// One writer's result, handed over from the leader.
    private final class Outcome: Sendable {
        private struct State {
            var error: (any Error)??
            var waiter: CheckedContinuation<Void, any Error>?
        }

        private let state = Mutex(State())

        func finish(_ error: (any Error)?) {
            let waiter = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                s.error = .some(error)
                defer { s.waiter = nil }
                return s.waiter
            }
            if let waiter { error.map { waiter.resume(throwing: $0) } ?? waiter.resume() }
        }

        func wait() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let done = state.withLock { s -> (any Error)?? in
                    if let error = s.error { return .some(error) }
                    s.waiter = continuation
                    return nil
                }
                if let done { done.map { continuation.resume(throwing: $0) } ?? continuation.resume() }
            }
        }
    }

    private let queue: DatabaseQueue
    private let state = Mutex<(entries: [Entry], leading: Bool)>(([], false))

    init(queue: DatabaseQueue) { self.queue = queue }

    func write<R: Sendable>(_ body: @escaping @Sendable (GRDB.Database) throws -> R) async throws -> R {
        let result = Mutex<Result<R, any Error>?>(nil)
        let outcome = Outcome()
        let entry = Entry(
            apply: { db in
                do {
                    try db.inSavepoint {
                        let value = try body(db)
                        result.withLock { $0 = .success(value) }
                        return .commit
                    }
                } catch {
                    result.withLock { $0 = .failure(error) }
                }
            }, outcome: outcome)
        let lead = state.withLock { s -> Bool in
            s.entries.append(entry)
            if s.leading { return false }
            s.leading = true
            return true
        }
        if lead { await drain() }
        try await outcome.wait()
        guard let value = result.withLock({ $0 }) else { throw CancellationError() }
        return try value.get()
    }

    /// Commits batches until nothing is queued.
    private func drain() async {
        while true {
            let batch = state.withLock { s -> [Entry]? in
                if s.entries.isEmpty {
                    s.leading = false
                    return nil
                }
                defer { s.entries = [] }
                return s.entries
            }
            guard let batch else { return }
            // Not `queue.write`: that would fail every writer's work if the leader's task is cancelled.
            let failure: (any Error)? = await withCheckedContinuation { done in
                queue.asyncWrite({ db in
                    for entry in batch { entry.apply(db) }
                }, completion: { _, result in
                    switch result {
                    case .success: done.resume(returning: nil)
                    case .failure(let error): done.resume(returning: error)
                    }
                })
            }
            for entry in batch { entry.outcome.finish(failure) }
        }
    }
}
