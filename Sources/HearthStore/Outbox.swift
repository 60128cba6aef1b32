/// A function run that is owed: written in the same transaction as the change that caused it, so a
/// crash can delay it but never lose it. Removed once the function succeeds; moved to the dead
/// letters when it keeps failing.
public struct OutboxEvent: Sendable, Hashable {
    /// Assigned by the store; increases with every enqueued event.
    public var id: Int64
    /// The registered function that must run.
    public var function: String
    /// What the function receives, encoded by whoever enqueued it (JSON).
    public var payload: [UInt8]
    /// When the event was enqueued (milliseconds since 1970).
    public var createdAt: Int64
    /// Failed runs so far.
    public var attempts: Int
    /// Not before this time (milliseconds since 1970).
    public var nextAttemptAt: Int64
    /// The last failure, for the dead-letter list.
    public var lastError: String?
    /// Given up on after too many failures; kept for an admin to inspect or retry.
    public var dead: Bool

    /// An event as stored; `id` is the store's.
    public init(
        id: Int64, function: String, payload: [UInt8], createdAt: Int64, attempts: Int = 0, nextAttemptAt: Int64,
        lastError: String? = nil, dead: Bool = false
    ) {
        self.id = id
        self.function = function
        self.payload = payload
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.dead = dead
    }
}

/// A store whose outbox several processes deliver from (PostgreSQL shared by nodes): a dispatcher
/// leases due events instead of reading them, so each is run by one node at a time.
public protocol OutboxLeasing: Sendable {
    /// Takes up to `limit` events due at `now` that nobody holds, and holds them for `lease`
    /// milliseconds (their next attempt moves to `now + lease`). An event whose run is not settled
    /// by then (its node died) is due again, for any node.
    func leaseDueEvents(now: Int64, limit: Int, lease: Int64) async throws -> [OutboxEvent]
}

/// Reading the outbox inside a store snapshot.
public protocol OutboxReader {
    /// Live events whose next attempt is due at `now`, oldest first.
    func dueEvents(now: Int64, limit: Int) throws -> [OutboxEvent]
    /// The earliest next attempt among live events (nil = none).
    func nextEventTime() throws -> Int64?
    /// Dead letters, oldest first, after `id` (paging).
    func deadEvents(after id: Int64, limit: Int) throws -> [OutboxEvent]
    /// One event, live or dead.
    func event(_ id: Int64) throws -> OutboxEvent?
    /// Whether an idempotency key was claimed (and not yet forgotten).
    func isClaimed(_ key: String) throws -> Bool
    /// Live events and dead letters, each counted up to `limit` (a default that reads the events is in
    /// `OperationCounters.swift`).
    func outboxCounts(limit: Int) throws -> OutboxCounts
}

/// A write carrying an idempotency key that an earlier committed write already claimed. Nothing of
/// it was written.
public struct AlreadyApplied: Error, Sendable, Hashable {
    /// The idempotency key that was already claimed.
    public var key: String

    /// The error for a write whose `key` was claimed before.
    public init(key: String) { self.key = key }
}

/// Writing the outbox inside a store transaction.
public protocol OutboxWriter {
    /// Adds an event due at `at`; returns its id.
    @discardableResult
    func enqueueEvent(function: String, payload: [UInt8], at: Int64) throws -> Int64
    /// Removes events whose functions ran.
    func finishEvents(_ ids: [Int64]) throws
    /// Records a failure and when to try again.
    func retryEvent(_ id: Int64, attempts: Int, at: Int64, error: String) throws
    /// Records the final failure: the event becomes a dead letter.
    func buryEvent(_ id: Int64, attempts: Int, error: String) throws
    /// Makes a dead letter live again, due at `at`, with its attempts reset. False if there is none.
    func reviveEvent(_ id: Int64, at: Int64) throws -> Bool
    /// Claims an idempotency key. True the first time; false if it was claimed before (by a
    /// committed transaction). Together with a write in the same transaction this makes a function's
    /// effect happen once, however often the function runs.
    func claimKey(_ key: String, at: Int64) throws -> Bool
    /// Forgets keys claimed before `time`.
    func forgetKeys(claimedBefore time: Int64) throws
}

/// The outbox of the in-memory stores.
public struct MemoryOutbox: Sendable {
    var events: [Int64: OutboxEvent] = [:]
    var lastID: Int64 = 0
    var keys: [String: Int64] = [:]

    /// An empty outbox.
    public init() {}
}

/// A memory transaction holding a `MemoryOutbox` gets the outbox operations from this.
protocol MemoryOutboxHost: AnyObject, OutboxReader, OutboxWriter {
    var outbox: MemoryOutbox { get set }
}

extension MemoryOutboxHost {
    func dueEvents(now: Int64, limit: Int) throws -> [OutboxEvent] {
        Array(outbox.events.values.filter { !$0.dead && $0.nextAttemptAt <= now }.sorted { $0.id < $1.id }.prefix(max(0, limit)))
    }

    func nextEventTime() throws -> Int64? { outbox.events.values.filter { !$0.dead }.map(\.nextAttemptAt).min() }

    func deadEvents(after id: Int64, limit: Int) throws -> [OutboxEvent] {
        Array(outbox.events.values.filter { $0.dead && $0.id > id }.sorted { $0.id < $1.id }.prefix(max(0, limit)))
    }

    func event(_ id: Int64) throws -> OutboxEvent? { outbox.events[id] }

    func isClaimed(_ key: String) throws -> Bool { outbox.keys[key] != nil }

    func enqueueEvent(function: String, payload: [UInt8], at: Int64) throws -> Int64 {
        outbox.lastID += 1
        let id = outbox.lastID
        outbox.events[id] = OutboxEvent(id: id, function: function, payload: payload, createdAt: at, nextAttemptAt: at)
        return id
    }

    func finishEvents(_ ids: [Int64]) throws {
        for id in ids { outbox.events[id] = nil }
    }

    func retryEvent(_ id: Int64, attempts: Int, at: Int64, error: String) throws {
        outbox.events[id]?.attempts = attempts
        outbox.events[id]?.nextAttemptAt = at
        outbox.events[id]?.lastError = error
    }

    func buryEvent(_ id: Int64, attempts: Int, error: String) throws {
        outbox.events[id]?.attempts = attempts
        outbox.events[id]?.lastError = error
        outbox.events[id]?.dead = true
    }

    func reviveEvent(_ id: Int64, at: Int64) throws -> Bool {
        guard outbox.events[id]?.dead == true else { return false }
        outbox.events[id]?.dead = false
        outbox.events[id]?.attempts = 0
        outbox.events[id]?.nextAttemptAt = at
        return true
    }

    func claimKey(_ key: String, at: Int64) throws -> Bool {
        guard outbox.keys[key] == nil else { return false }
        outbox.keys[key] = at
        return true
    }

    func forgetKeys(claimedBefore time: Int64) throws { outbox.keys = outbox.keys.filter { $0.value >= time } }
}
