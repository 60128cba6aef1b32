import HearthDatabase
import NIOCore
import Synchronization

/// Passes a listen's change events from the hub straight to the connection's outbox, in commit
/// order, without a hop through the session — unless the session has something to do first.
///
/// The gate starts closed (the initial data has not been sent). While closed it holds what the
/// hub delivers. Anything other than a plain event (a query to re-run, rules to re-check) closes
/// it and goes to the session, which re-opens it with ``resume()`` once done, so nothing is sent
/// ahead of a check that could have revoked the listen.
final class ListenGate: Sendable {
    private struct State {
        /// Deliveries waiting while closed; nil when open.
        var held: [Delivery]? = []
        /// Commit sequence the client's data reflects.
        var seen: UInt64 = 0
    }

    private let state = Mutex(State())
    private let outbox: RealtimeOutbox
    /// Deliveries held before the connection counts as too slow.
    private let limit: Int

    init(outbox: RealtimeOutbox, limit: Int) {
        self.outbox = outbox
        self.limit = limit
    }

    /// From the hub (under its lock). Returns a delivery the session must handle, or nil.
    func offer(_ delivery: Delivery) -> Delivery? {
        var overflow = false
        let forward = state.withLock { s -> Delivery? in
            if s.held != nil {
                s.held?.append(delivery)
                overflow = (s.held?.count ?? 0) > limit
                return nil
            }
            switch delivery {
            case .keepAlive:
                return nil
            case .event(let sequence, let buffer):
                if sequence > s.seen {
                    s.seen = sequence
                    outbox.send(buffer)
                }
                return nil
            case .requery, .recheck, .resync:
                s.held = []
                return delivery
            }
        }
        if overflow { outbox.abandon() }
        return forward
    }

    /// Sends held events; returns the next held delivery the session must handle (the gate stays
    /// closed), or nil once everything held went out (the gate is open).
    func resume() -> Delivery? {
        state.withLock { s in
            while let held = s.held, let first = held.first {
                s.held = Array(held.dropFirst())
                switch first {
                case .keepAlive:
                    continue
                case .event(let sequence, let buffer):
                    if sequence > s.seen {
                        s.seen = sequence
                        outbox.send(buffer)
                    }
                case .requery, .recheck, .resync:
                    return first
                }
            }
            s.held = nil
            return nil
        }
    }

    /// Continues where `old` left off: `old` is the same listen's previous hub listener, already unregistered
    /// (it receives nothing more). What the client has from it counts as seen here, and what it still held goes
    /// out first, ahead of this gate's own held deliveries; events both hold are sent once.
    func takeOver(from old: ListenGate) {
        let (seen, held) = old.state.withLock { s -> (UInt64, [Delivery]) in
            defer { s.held = [] }
            return (s.seen, s.held ?? [])
        }
        state.withLock { s in
            s.seen = max(s.seen, seen)
            s.held = held + (s.held ?? [])
        }
    }

    /// The commit sequence the client's data reflects.
    var seen: UInt64 { state.withLock { $0.seen } }

    /// The client's data now reflects `sequence` (initial data or a re-run query was sent).
    func advance(to sequence: UInt64) {
        state.withLock { $0.seen = max($0.seen, sequence) }
    }
}
