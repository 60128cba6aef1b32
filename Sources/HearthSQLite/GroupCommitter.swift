import GRDB
import Synchronization

/// Runs concurrent write transactions together: whoever finds no commit in progress becomes the
/// leader and commits everything queued so far in one SQLite transaction (one sync for many
/// writers), each writer's work in its own savepoint so one failure rolls back only that work.
/// After its batch the leader hands the lead to the oldest waiting writer, so no caller commits
/// other callers' work for more than one batch. A call returns only after the commit that holds
/// its work.
final class GroupCommitter: Sendable {
    private struct Entry: Sendable {
        let apply: @Sendable (GRDB.Database) -> Void
        let outcome: Outcome
    }

    /// What a waiting writer is told: its work committed (or failed), or it leads the next batch.
    private enum Signal {
        case done((any Error)?)
        case lead
    }

    /// One writer's mailbox, filled by the current leader.
    private final class Outcome: Sendable {
        private struct State {
            var signal: Signal?
            var waiter: CheckedContinuation<Signal, Never>?
        }

        private let state = Mutex(State())

        func send(_ signal: Signal) {
            let waiter = state.withLock { s -> CheckedContinuation<Signal, Never>? in
                guard let waiter = s.waiter else {
                    s.signal = signal
                    return nil
                }
                s.waiter = nil
                return waiter
            }
            waiter?.resume(returning: signal)
        }

        func next() async -> Signal {
            await withCheckedContinuation { (continuation: CheckedContinuation<Signal, Never>) in
                let ready = state.withLock { s -> Signal? in
                    if let signal = s.signal {
                        s.signal = nil
                        return signal
                    }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
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
        var lead = state.withLock { s -> Bool in
            s.entries.append(entry)
            if s.leading { return false }
            s.leading = true
            return true
        }
        while true {
            if lead { await commitBatch() }
            switch await outcome.next() {
            case .lead: lead = true
            case .done(let failure?): throw failure
            case .done(nil):
                guard let value = result.withLock({ $0 }) else { throw CancellationError() }
                return try value.get()
            }
        }
    }

    /// Commits everything queued now (the leader's own work included), tells each writer, and
    /// passes the lead to the oldest writer still waiting (or gives it up).
    private func commitBatch() async {
        let batch = state.withLock { s -> [Entry] in
            defer { s.entries = [] }
            return s.entries
        }
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
        let next = state.withLock { s -> Outcome? in
            guard let first = s.entries.first else {
                s.leading = false
                return nil
            }
            return first.outcome
        }
        next?.send(.lead)
        for entry in batch { entry.outcome.send(.done(failure)) }
    }
}
