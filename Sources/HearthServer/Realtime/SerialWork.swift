import DequeModule
import Synchronization

/// Items handled one at a time, in order, by a task that exists only while there is work.
///
/// A realtime connection is idle almost all of the time; a task parked per connection waiting for
/// input would keep its stack allocation (about a kilobyte per task) for every idle client. Here
/// the first item after a quiet spell starts a task, which handles items until the queue is empty
/// and then ends.
final class SerialWork<Item: Sendable>: Sendable {
    private struct State {
        var queue: Deque<Item> = []
        var running = false
        var finished = false
        /// Items accepted, and items handled, since the start.
        var added: UInt64 = 0
        var handled: UInt64 = 0
        /// Callers of ``handledAll()``: each resumes once `handled` reaches its target.
        var waiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let limit: Int
    private let handle: @Sendable (Item) async -> Void

    /// - Parameters:
    ///   - limit: items waiting at most; ``add(_:)`` refuses more.
    ///   - handle: called for each item, never for two at once.
    init(limit: Int, handle: @escaping @Sendable (Item) async -> Void) {
        self.limit = limit
        self.handle = handle
    }

    /// Queues `item`; false (and nothing queued) when `limit` items are waiting or after ``finish()``.
    @discardableResult
    func add(_ item: Item) -> Bool {
        let start = state.withLock { s -> Bool? in
            guard !s.finished, s.queue.count < limit else { return nil }
            s.queue.append(item)
            s.added += 1
            defer { s.running = true }
            return !s.running
        }
        guard let start else { return false }
        if start { Task { await self.run() } }
        return true
    }

    /// Items waiting (not counting one being handled).
    var waiting: Int { state.withLock { $0.queue.count } }

    /// Returns once every item queued before the call has been handled.
    func handledAll() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                guard s.handled < s.added else { return true }
                s.waiters.append((s.added, c))
                return false
            }
            if done { c.resume() }
        }
    }

    /// Accepts nothing more; what is queued is still handled.
    func finish() {
        state.withLock { $0.finished = true }
    }

    private func run() async {
        while let item = state.withLock({ s -> Item? in
            if let next = s.queue.popFirst() { return next }
            s.running = false
            return nil
        }) {
            await handle(item)
            let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.handled += 1
                guard !s.waiters.isEmpty else { return [] }
                let handled = s.handled
                defer { s.waiters.removeAll { $0.target <= handled } }
                return s.waiters.filter { $0.target <= handled }.map(\.continuation)
            }
            for c in ready { c.resume() }
        }
    }
}
