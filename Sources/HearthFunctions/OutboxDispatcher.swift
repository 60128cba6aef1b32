import Foundation
import HearthStore
import Logging
import Synchronization

/// One durable outbox (a namespace's, the accounts', the object catalog's) as the dispatcher uses it.
package struct EventQueue: Sendable {
    /// `db:<namespace>`, `auth` or `storage`: names the queue in event ids and the dead-letter API.
    package let name: String
    let due: @Sendable (_ now: Int64, _ limit: Int) async throws -> [OutboxEvent]
    let nextTime: @Sendable () async throws -> Int64?
    /// Applies finished runs in one transaction.
    let settle: @Sendable ([Settlement]) async throws -> Void
    package let dead: @Sendable (_ after: Int64, _ limit: Int) async throws -> [OutboxEvent]
    package let revive: @Sendable (_ id: Int64, _ at: Int64) async throws -> Bool
    /// Live events and dead letters, each counted up to the bound given (for `/metrics`).
    package var counts: @Sendable (_ limit: Int) async throws -> OutboxCounts = { _ in OutboxCounts() }

    /// What became of one run.
    enum Settlement: Sendable {
        case done(Int64)
        case retry(Int64, attempts: Int, at: Int64, error: String)
        case bury(Int64, attempts: Int, error: String)
    }

    static func apply(_ settlements: [Settlement], _ tx: any OutboxWriter) throws {
        var done: [Int64] = []
        for s in settlements {
            switch s {
            case .done(let id): done.append(id)
            case .retry(let id, let attempts, let at, let error): try tx.retryEvent(id, attempts: attempts, at: at, error: error)
            case .bury(let id, let attempts, let error): try tx.buryEvent(id, attempts: attempts, error: error)
            }
        }
        if !done.isEmpty { try tx.finishEvents(done) }
    }

    /// How long a node holds the events it leased from a shared outbox before another may run them.
    static let lease: Int64 = 120_000

    /// Reads due events, or leases them where several nodes deliver from one outbox.
    private static func due(
        _ store: any Sendable, reading: @escaping @Sendable (Int64, Int) async throws -> [OutboxEvent]
    ) -> @Sendable (Int64, Int) async throws -> [OutboxEvent] {
        guard let leasing = store as? any OutboxLeasing else { return reading }
        return { now, limit in try await leasing.leaseDueEvents(now: now, limit: limit, lease: lease) }
    }

    init(database store: any DatabaseStore, namespace: String) {
        name = "db:" + namespace
        due = Self.due(store) { now, limit in try await store.snapshot { try $0.dueEvents(now: now, limit: limit) } }
        nextTime = { try await store.snapshot { try $0.nextEventTime() } }
        settle = { s in try await store.write { try EventQueue.apply(s, $0) } }
        dead = { after, limit in try await store.snapshot { try $0.deadEvents(after: after, limit: limit) } }
        revive = { id, at in try await store.write { try $0.reviveEvent(id, at: at) } }
        counts = { limit in try await store.snapshot { try $0.outboxCounts(limit: limit) } }
    }

    init(accounts store: any AccountStore) {
        name = "auth"
        due = Self.due(store) { now, limit in try await store.read { try $0.dueEvents(now: now, limit: limit) } }
        nextTime = { try await store.read { try $0.nextEventTime() } }
        settle = { s in try await store.transaction { try EventQueue.apply(s, $0) } }
        dead = { after, limit in try await store.read { try $0.deadEvents(after: after, limit: limit) } }
        revive = { id, at in try await store.transaction { try $0.reviveEvent(id, at: at) } }
        counts = { limit in try await store.read { try $0.outboxCounts(limit: limit) } }
    }

    init(objects catalog: any ObjectCatalog) {
        name = "storage"
        due = Self.due(catalog) { now, limit in try await catalog.read { try $0.dueEvents(now: now, limit: limit) } }
        nextTime = { try await catalog.read { try $0.nextEventTime() } }
        settle = { s in try await catalog.transaction { try EventQueue.apply(s, $0) } }
        dead = { after, limit in try await catalog.read { try $0.deadEvents(after: after, limit: limit) } }
        revive = { id, at in try await catalog.transaction { try $0.reviveEvent(id, at: at) } }
        counts = { limit in try await catalog.read { try $0.outboxCounts(limit: limit) } }
    }
}

/// A wake-up flag a loop can wait on with a deadline; `signal()` before the wait is not lost.
package final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else {
                s.signalled = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Returns on a signal, after `timeout` (nil = none), or when the task is cancelled.
    func wait(timeout: Duration?) async {
        let generation = state.withLock { s -> Int? in
            if s.signalled {
                s.signalled = false
                return nil
            }
            s.generation += 1
            return s.generation
        }
        guard let generation else { return }
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.fire(generation)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.signalled || s.generation != generation {
                        s.signalled = false
                        return true
                    }
                    s.waiter = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            self.fire(generation)
        }
        timer?.cancel()
    }

    /// Ends the wait of `generation` (a timeout or cancellation), if it is still the one waiting.
    private func fire(_ generation: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.generation == generation else { return nil }
            s.generation += 1
            let w = s.waiter
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }
}

/// Delivers one outbox: runs each due event's function (up to `concurrency` at once), then removes
/// it, schedules a retry with backoff, or makes it a dead letter, in batches.
///
/// At least once: an event leaves the outbox only after its function returned, so a crash in between
/// runs it again on restart. A run interrupted by shutdown is not counted as a failure.
package final class OutboxDispatcher: Sendable {
    package typealias Runner = @Sendable (OutboxEvent) async -> RunResult

    package enum RunResult: Sendable {
        case success
        /// `maxAttempts`/backoff come from the function's retry policy.
        case failure(String, RetryPolicy)
        /// Interrupted by shutdown: leave it for the next start.
        case interrupted
    }

    package let queue: EventQueue
    private let logger: Logger
    private let concurrency: Int
    /// Checks the outbox at least this often even without a wake-up (for outboxes whose writers
    /// cannot tell us after they commit).
    private let poll: Duration?
    private let wakeup = Wakeup()
    private let finished = Mutex<[(OutboxEvent, RunResult)]>([])
    private let clock: @Sendable () -> Int64

    init(
        queue: EventQueue, concurrency: Int = 32, poll: Duration? = nil, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.queue = queue
        self.logger = logger
        self.concurrency = concurrency
        self.poll = poll
        self.clock = clock
    }

    /// New events were committed.
    package func wake() { wakeup.signal() }

    /// Delivers until cancelled, running each event with `runner`; running functions then finish
    /// (or see the cancellation) first.
    func run(_ runner: @escaping Runner) async {
        await withDiscardingTaskGroup { group in
            var inFlight: Set<Int64> = []
            var failures = 0
            while !Task.isCancelled {
                var wait: Duration? = poll
                do {
                    try await settle(&inFlight)
                    let now = clock()
                    if inFlight.count < concurrency {
                        for event in try await queue.due(now, concurrency * 2) where !inFlight.contains(event.id) {
                            guard inFlight.count < concurrency else { break }
                            inFlight.insert(event.id)
                            group.addTask {
                                let result = await runner(event)
                                self.finished.withLock { $0.append((event, result)) }
                                self.wakeup.signal()
                            }
                        }
                    }
                    if inFlight.count < concurrency, let next = try await queue.nextTime(), next > now {
                        let untilNext = Duration.milliseconds(next - now)
                        wait = wait.map { min($0, untilNext) } ?? untilNext
                    }
                    failures = 0
                } catch {
                    failures += 1
                    logger.error("cannot read the function outbox", metadata: ["hearth.queue": "\(queue.name)", "hearth.error": "\(error)"])
                    wait = .milliseconds(min(30_000, 100 << min(failures, 8)))
                }
                await wakeup.wait(timeout: wait)
            }
        }
        // Record what finished during shutdown, so it does not run again.
        var none: Set<Int64> = []
        try? await settle(&none)
    }

    private func settle(_ inFlight: inout Set<Int64>) async throws {
        let results = finished.withLock { f in
            defer { f.removeAll() }
            return f
        }
        guard !results.isEmpty else { return }
        let now = clock()
        var settlements: [EventQueue.Settlement] = []
        for (event, result) in results {
            inFlight.remove(event.id)
            switch result {
            case .success:
                settlements.append(.done(event.id))
            case .interrupted:
                continue
            case .failure(let message, let policy):
                let attempts = event.attempts + 1
                let error = String(message.prefix(2000))
                if attempts >= policy.maxAttempts {
                    logger.error(
                        "function failed for the last time; the event is now a dead letter",
                        metadata: ["hearth.function": "\(event.function)", "hearth.event": "\(queue.name)/\(event.id)", "hearth.attempts": "\(attempts)"])
                    settlements.append(.bury(event.id, attempts: attempts, error: error))
                } else {
                    settlements.append(.retry(event.id, attempts: attempts, at: now + policy.backoffMillis(afterAttempts: attempts), error: error))
                }
            }
        }
        if !settlements.isEmpty {
            do {
                try await queue.settle(settlements)
            } catch {
                // Not settled: the events stay due and run again (at least once), so forget them here.
                logger.error("cannot record finished functions", metadata: ["hearth.queue": "\(queue.name)", "hearth.error": "\(error)"])
                throw error
            }
        }
    }
}
