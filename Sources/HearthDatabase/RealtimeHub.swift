import Dispatch
import HearthCore
import HearthStore
import HearthWire
import NIOCore
import Synchronization

/// Something a stream listener must act on, tagged with the commit sequence it reflects.
package enum Delivery: Sendable {
    /// Pre-encoded SSE bytes, shared by every listener at the same location and format.
    case event(sequence: UInt64, ByteBuffer)
    /// A change touched a query listener's location: re-run the query.
    case requery(sequence: UInt64)
    /// Data or rules changed in a way that may change whether the listener may read: check again
    /// before delivering what follows.
    case recheck(sequence: UInt64)
    case keepAlive
    /// Changes were lost before the ones that follow (another node's commits the change log no
    /// longer holds): read the listener's whole value again and send it.
    case resync
}

/// Fans committed changes out to the namespace's stream listeners.
///
/// Listeners are kept in a trie by location, so a change at W visits only listeners above, at or below W.
/// Each event is encoded once per (location, format) and the same buffer is handed to every listener there.
///
/// The fan-out runs on its own queue, in commit order, after the commit: ``didCommit(_:)`` only queues the
/// changes. A write to a location with 10,000 listeners would otherwise hold the namespace's writer (every
/// other write, and its own acknowledgement) for the whole fan-out. Whoever must not answer before its change
/// reached the listeners (a realtime client's own write: its listen sees the data before the `ok`) awaits
/// ``published()``.
package final class RealtimeHub: ChangeObserver, Sendable {
    /// How a listener's events are encoded.
    package enum Encoding: Sendable, Hashable {
        /// SSE `put`/`patch` events, paths relative to the listener.
        case serverSentEvents(RenderFormat)
        /// Realtime protocol `d`/`m` pushes, absolute paths, export format.
        case realtime
    }

    /// Where a listener's deliveries go.
    package struct Sink: Sendable {
        /// Returns false when the delivery was dropped because the consumer is too slow.
        var yield: @Sendable (Delivery) -> Bool
        var finish: @Sendable () -> Void

        package init(yield: @escaping @Sendable (Delivery) -> Bool, finish: @escaping @Sendable () -> Void) {
            self.yield = yield
            self.finish = finish
        }

        /// Into `continuation`; with a `budget`, events also count against its bytes.
        init(_ continuation: AsyncStream<Delivery>.Continuation, budget: StreamBudget? = nil) {
            yield = { delivery in
                if let budget, case .event(_, let buffer) = delivery, !budget.take(buffer.readableBytes) { return false }
                if case .dropped = continuation.yield(delivery) { return false }
                return true
            }
            finish = { continuation.finish() }
        }
    }

    struct Listener: Sendable {
        var id: Int
        var location: Path
        var encoding: Encoding
        var isQuery: Bool
        /// Subject to rules (not admin).
        var checksRules: Bool
        var sink: Sink
    }

    final class TrieNode: @unchecked Sendable {
        // Only touched while holding `RealtimeHub.state`'s lock.
        var children: [Key: TrieNode] = [:]
        var listeners: [Int: Listener] = [:]
    }

    struct State: Sendable {
        var nextID = 0
        var root = TrieNode()
        var count = 0
        /// Listeners whose read rules look at data: re-checked after every commit.
        var dataDependent: [Int: Listener] = [:]
    }

    /// Committed changes waiting for the fan-out, and who waits for them.
    private struct Publishing {
        var queue: [[Change]] = []
        var running = false
        /// Batches queued and batches fanned out since the start.
        var queued: UInt64 = 0
        var published: UInt64 = 0
        var waiters: [(batch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Maximum undelivered events per listener before it is disconnected as too slow.
    let bufferLimit: Int
    private let state = Mutex(State())
    private let publishing = Mutex(Publishing())
    /// `state.count`, readable without the lock. Data-dependent listeners are among them.
    private let listeners = Atomic(0)
    /// Runs the fan-out: a plain thread rather than the tasks' shared pool, which a 10,000-listener fan-out
    /// (~15 ms of work) would otherwise hold away from request handling.
    private let publisher = DispatchQueue(label: "hearth.realtime-hub")

    package init(bufferLimit: Int = 4096) {
        self.bufferLimit = bufferLimit
    }

    /// Registered listeners.
    package var listenerCount: Int { listeners.load(ordering: .sequentiallyConsistent) }

    /// Registers a listener; its stream buffers every change committed from now on (at most
    /// `bufferLimit` deliveries, and with a `budget` at most its bytes of events: the consumer gives
    /// each event's bytes back once it has written it).
    package func register(
        location: Path, format: RenderFormat, isQuery: Bool, checksRules: Bool = false, dataDependent: Bool = false,
        budget: StreamBudget? = nil
    ) -> (id: Int, stream: AsyncStream<Delivery>) {
        let (stream, continuation) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = register(
            location: location, encoding: .serverSentEvents(format), isQuery: isQuery, checksRules: checksRules,
            dataDependent: dataDependent, sink: Sink(continuation, budget: budget))
        return (id, stream)
    }

    /// Registers a listener that delivers into `sink` (a realtime connection multiplexes many).
    package func register(
        location: Path, encoding: Encoding, isQuery: Bool, checksRules: Bool, dataDependent: Bool, sink: Sink
    ) -> Int {
        state.withLock { s -> Int in
            s.nextID += 1
            var node = s.root
            for k in location.keys {
                if let next = node.children[k] {
                    node = next
                } else {
                    let next = TrieNode()
                    node.children[k] = next
                    node = next
                }
            }
            let listener = Listener(
                id: s.nextID, location: location, encoding: encoding, isQuery: isQuery, checksRules: checksRules, sink: sink)
            node.listeners[s.nextID] = listener
            if checksRules && dataDependent { s.dataDependent[s.nextID] = listener }
            s.count += 1
            listeners.store(s.count, ordering: .sequentiallyConsistent)
            return s.nextID
        }
    }

    package func unregister(id: Int, location: Path) {
        let removed = state.withLock { s -> Listener? in
            var chain = [s.root]
            for k in location.keys {
                guard let next = chain.last!.children[k] else { return nil }
                chain.append(next)
            }
            guard let l = chain.last!.listeners.removeValue(forKey: id) else { return nil }
            s.dataDependent[id] = nil
            s.count -= 1
            listeners.store(s.count, ordering: .sequentiallyConsistent)
            // Prune empty trie branches.
            for (i, k) in location.keys.enumerated().reversed() {
                let node = chain[i + 1]
                if node.listeners.isEmpty && node.children.isEmpty { chain[i].children[k] = nil } else { break }
            }
            return l
        }
        removed?.sink.finish()
    }

    /// Queues `changes` for the fan-out (called by the writer, in commit order).
    package func didCommit(_ changes: [Change]) {
        // Nobody to tell: a listener registered from now on reads a snapshot that already has these changes
        // (the writer calls this after the commit is visible to new snapshots, which both stores order with
        // their reads). Not `state`'s lock: the fan-out holds it while it runs, and the writer must not wait.
        let idle = listeners.load(ordering: .sequentiallyConsistent) == 0
        let start = publishing.withLock { p -> Bool? in
            if idle && !p.running { return nil }
            p.queue.append(changes)
            p.queued += 1
            defer { p.running = true }
            return !p.running
        }
        if start == true { publisher.async { self.runPublisher() } }
    }

    /// Returns once every change committed before the call has been handed to the listeners.
    package func published() async {
        await waitUntilPublished(publishing.withLock { $0.queued })
    }

    /// Callers waiting in ``published()`` or ``backpressure()``.
    package var waiting: Int { publishing.withLock { $0.waiters.count } }

    /// Returns once `target` batches have been fanned out.
    private func waitUntilPublished(_ target: UInt64) async {
        guard publishing.withLock({ $0.published < target }) else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = publishing.withLock { p -> Bool in
                guard p.published < target else { return true }
                p.waiters.append((target, c))
                return false
            }
            if done { c.resume() }
        }
    }

    /// Commit batches the fan-out may fall behind before the writer waits for it: without a bound, writes
    /// that come faster than a large fan-out can go out would queue up in memory.
    package static let maxBacklog: UInt64 = 64

    /// More than ``maxBacklog`` batches behind: waits until the fan-out is back to half of that, so writes
    /// slow down to its pace instead of stopping until it is idle.
    package func backpressure() async {
        let target = publishing.withLock { p -> UInt64? in
            p.queued - p.published > Self.maxBacklog ? p.queued - Self.maxBacklog / 2 : nil
        }
        if let target { await waitUntilPublished(target) }
    }

    /// Fans out queued batches until none is left.
    private func runPublisher() {
        while true {
            let batches = publishing.withLock { p -> [[Change]] in
                if p.queue.isEmpty { p.running = false }
                defer { p.queue = [] }
                return p.queue
            }
            if batches.isEmpty { return }
            for changes in batches {
                publish(changes)
                let ready = publishing.withLock { p -> [CheckedContinuation<Void, Never>] in
                    p.published += 1
                    guard !p.waiters.isEmpty else { return [] }
                    let published = p.published
                    let ready = p.waiters.filter { $0.batch <= published }.map(\.continuation)
                    p.waiters.removeAll { $0.batch <= published }
                    return ready
                }
                for c in ready { c.resume() }
            }
        }
    }

    /// Hands one commit's changes to every listener they concern.
    private func publish(_ changes: [Change]) {
        var slow: [Listener] = []
        state.withLock { s in
            if let last = changes.last?.sequence {
                for l in s.dataDependent.values {
                    if !l.sink.yield(.recheck(sequence: last)) { slow.append(l) }
                }
            }
            for change in changes {
                // Each event is encoded once per location and encoding.
                var cache: [Encoding: [Path: ByteBuffer]] = [:]
                let deliver = { (l: Listener) in
                    let delivered: Bool
                    if l.isQuery {
                        delivered = l.sink.yield(.requery(sequence: change.sequence))
                    } else {
                        var buffer = cache[l.encoding]?[l.location]
                        if buffer == nil, let event = change.event(for: l.location) {
                            buffer = ByteBuffer(bytes: RealtimeHub.encode(event, at: l.location, encoding: l.encoding))
                            cache[l.encoding, default: [:]][l.location] = buffer
                        }
                        guard let buffer else { return }
                        delivered = l.sink.yield(.event(sequence: change.sequence, buffer))
                    }
                    if !delivered { slow.append(l) }
                }
                // Listeners at or above the change.
                var node = s.root
                node.listeners.values.forEach(deliver)
                var reached = true
                for k in change.path.keys {
                    guard let next = node.children[k] else {
                        reached = false
                        break
                    }
                    node = next
                    node.listeners.values.forEach(deliver)
                }
                // Listeners strictly below the change.
                if reached {
                    var stack = Array(node.children.values)
                    while let n = stack.popLast() {
                        n.listeners.values.forEach(deliver)
                        stack.append(contentsOf: n.children.values)
                    }
                }
            }
        }
        for l in slow { unregister(id: l.id, location: l.location) }
    }

    static func encode(_ event: ListenerEvent, at location: Path, encoding: Encoding) -> [UInt8] {
        switch (event, encoding) {
        case (.put(let p, let n), .serverSentEvents(let format)): return ServerSentEvent.put(path: p, node: n, format: format)
        case (.patch(let p, let e), .serverSentEvents(let format)): return ServerSentEvent.patch(path: p, entries: e, format: format)
        case (.put(let p, let n), .realtime): return RealtimeMessage.dataPush(path: location.appending(p), node: n)
        case (.patch(let p, let e), .realtime): return RealtimeMessage.mergePush(path: location.appending(p), entries: e)
        }
    }

    /// The rules changed: every listener under rules checks again, and which ones depend on data
    /// is recomputed.
    package func rulesChanged(dataDependent: (Path) -> Bool) {
        state.withLock { s in
            s.dataDependent = [:]
            var stack = [s.root]
            while let n = stack.popLast() {
                for l in n.listeners.values where l.checksRules {
                    if dataDependent(l.location) { s.dataDependent[l.id] = l }
                    _ = l.sink.yield(.recheck(sequence: .max))
                }
                stack.append(contentsOf: n.children.values)
            }
        }
    }

    /// Every listener reads its whole value again (``Delivery/resync``): what it was sent may miss
    /// commits that will never be delivered. Deliveries queued before this one reflect commits the
    /// fresh read already holds; listeners skip them by sequence.
    package func changesLost() {
        // A listener that cannot take the resync would stay stale: it is dropped, like a slow one.
        let slow = state.withLock { s -> [Listener] in
            var slow: [Listener] = []
            var stack = [s.root]
            while let n = stack.popLast() {
                for l in n.listeners.values where !l.sink.yield(.resync) { slow.append(l) }
                stack.append(contentsOf: n.children.values)
            }
            return slow
        }
        for l in slow { unregister(id: l.id, location: l.location) }
    }

    /// Sends a keep-alive to every listener.
    package func keepAlive() {
        state.withLock { s in
            var stack = [s.root]
            while let n = stack.popLast() {
                for l in n.listeners.values { _ = l.sink.yield(.keepAlive) }
                stack.append(contentsOf: n.children.values)
            }
        }
    }

    /// Ends every stream (server shutdown).
    func closeAll() {
        let all = state.withLock { s -> [Listener] in
            var out: [Listener] = []
            var stack = [s.root]
            while let n = stack.popLast() {
                out.append(contentsOf: n.listeners.values)
                stack.append(contentsOf: n.children.values)
            }
            s.root = TrieNode()
            s.dataDependent = [:]
            s.count = 0
            listeners.store(0, ordering: .sequentiallyConsistent)
            return out
        }
        for l in all { l.sink.finish() }
    }
}
