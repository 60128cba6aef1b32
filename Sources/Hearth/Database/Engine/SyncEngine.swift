import HearthCore
import Synchronization

/// What an observer is told.
enum ViewUpdate: Sendable {
    case value(Node, fromCache: Bool)
    case children([ChildChange], fromCache: Bool)
    /// The listen failed or was revoked; the observer is removed.
    case failed(DatabaseError)
    /// The database closed; the observer is removed.
    case finished
}

/// One observer of a view.
struct Subscription: Sendable {
    enum Kind: Sendable {
        case value, children
    }

    let id: Int
    let spec: ViewSpec
    let kind: Kind
    let sink: @Sendable (ViewUpdate) -> Void
    /// What was last reported (nil before the first report).
    var last: Node?
    /// Whether the last value report was from the cache: a value observer is told again, with
    /// the same data, once the server confirms it.
    var lastFromCache = false
}

/// Work the engine hands to its run loop (which owns the child tasks talking to the connection).
enum EngineCommand: Sendable {
    case subscribe(Subscription)
    case unsubscribe(Int)
    case keepSynced(ViewSpec, Bool)
    case listen(ListenSpec, tag: Int?, hash: String, generation: Int)
    case unlisten(ListenSpec, tag: Int?)
}

/// A server listen's state.
struct ListenState: Sendable {
    var refCount: Int
    var tag: Int?
    var sentHash: String
    /// Which acquisition this is: a listen released and acquired again for the same spec is a new one, and the old
    /// one's late answer (acknowledgement or "removed before acknowledged") must not reach it.
    var generation: Int
    /// Up to date: data or an acknowledgement arrived since the last (re)connection.
    var live = false
    var dataReceived = false
}

/// The sync engine: confirmed server data, pending local writes on top, and the views observers
/// see. All state lives in this actor; the run loop feeds it server events and performs its
/// listens, unlistens and writes on the connection.
///
/// - Server data: `tree` holds untagged data (complete where `complete` says so); `queryData`
///   holds the results of filtered (tagged) queries, which may be partial windows of the tree.
/// - Pending writes are applied in write-id order over the server data (latency compensation);
///   they are sent one at a time, in order, so the server applies them in the order they were made.
/// - Every change recomputes each observer's view and reports the difference.
actor SyncEngine {
    let connection: any RealtimeConnection
    let clock: ServerClock
    let store: PersistenceStore?
    let limits: PersistenceLimits
    let commands: AsyncStream<EngineCommand>.Continuation
    let commandStream: AsyncStream<EngineCommand>
    let outbox: AsyncStream<Int64>.Continuation
    let outboxStream: AsyncStream<Int64>
    private let nextSubscriptionID = Atomic<Int>(1)

    // Server data.
    var tree: Node = .empty
    var complete = PathSet()
    var queryData: [ListenSpec: Node] = [:]
    /// Bumped on every change of server data (a one-off read caches its answer only if nothing arrived meanwhile).
    var serverVersion: UInt64 = 0
    var connected = false {
        didSet { if connected != oldValue { for watcher in connectionWatchers.values { watcher.yield(connected) } } }
    }
    /// Streams of `connectionStates()` (Firebase's `.info/connected`).
    var connectionWatchers: [Int: AsyncStream<Bool>.Continuation] = [:]
    var explicitlyOffline = false
    var closed = false
    /// The cache file is written at most every ``cacheSaveInterval`` (and on close): writing it means encoding the
    /// whole cache, too much for every server change of a large one. Pending writes are saved at once.
    var cacheSave: Task<Void, Never>?
    static let cacheSaveInterval = Duration.milliseconds(500)

    // Listens.
    var listens: [ListenSpec: ListenState] = [:]
    var tags: [Int: ListenSpec] = [:]
    var nextTag = 1
    var nextListenGeneration = 1
    var keptSynced: Set<ViewSpec> = []

    // Writes.
    var writes: [PendingWrite] = []
    var nextWriteID: Int64 = 1
    var tickets: [Int64: Completion] = [:]
    /// Transactions in progress (by token) and those waiting for an overlapping one to end.
    var runningTransactions: [Int: Path] = [:]
    var nextTransactionToken = 1
    var transactionWaiters: [CheckedContinuation<Void, Never>] = []

    // Observers.
    var subscriptions: [Int: Subscription] = [:]
    var completionWaiters: [(ViewSpec, Completion)] = []

    init(connection: any RealtimeConnection, clock: ServerClock, store: PersistenceStore?, limits: PersistenceLimits = .init()) {
        self.connection = connection
        self.clock = clock
        self.store = store
        self.limits = limits
        (commandStream, commands) = AsyncStream.makeStream(of: EngineCommand.self)
        (outboxStream, outbox) = AsyncStream.makeStream(of: Int64.self)
        guard let store else { return }

        let cache = store.loadCache()
        tree = cache.tree
        complete = cache.complete
        queryData = cache.queries

        // Pending writes from the last run: shown locally again and re-sent, in order.
        let stored = store.loadWrites()
        nextWriteID = stored.nextID
        var restored: [PendingWrite] = []
        for w in stored.writes {
            let base = cache.tree
            let earlier = restored
            let now = clock.serverNow
            let resolved = try? SyncEngine.resolve(w.path, w.operation, now: now) { path in
                SyncEngine.localNode(at: path, tree: base, writes: earlier)
            }
            guard let resolved else { continue }
            restored.append(PendingWrite(id: w.id, path: w.path, operation: w.operation, hash: nil, durable: true, resolved: resolved))
            outbox.yield(w.id)
        }
        writes = restored
    }

    nonisolated func makeSubscriptionID() -> Int {
        nextSubscriptionID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    // MARK: - Run loop

    /// Opens the connection and runs until `close()`: applies server events, sends writes in order
    /// and performs listens. Cancelling the calling task stops it.
    nonisolated func run() async {
        await connection.open()
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in self.connection.events { await self.handle(event) }
            }
            group.addTask { await self.sendWrites() }
            for await command in commandStream {
                switch command {
                case .subscribe(let s): await add(s)
                case .unsubscribe(let id): await remove(id)
                case .keepSynced(let spec, let on): await keepSynced(spec, on)
                case .listen(let spec, let tag, let hash, let generation):
                    group.addTask { await self.performListen(spec, tag: tag, hash: hash, generation: generation) }
                case .unlisten(let spec, let tag):
                    // In line, so a later listen of the same spec cannot overtake it.
                    await connection.unlisten(path: spec.path, query: spec.query, tag: tag)
                }
            }
            group.cancelAll()
        }
    }

    /// Stops observers and waiters; pending durable writes stay on disk for the next start.
    func shutdown() {
        guard !closed else { return }
        closed = true
        cacheSave?.cancel()
        writeCache()
        for watcher in connectionWatchers.values { watcher.finish() }
        connectionWatchers = [:]
        for (_, sub) in subscriptions { sub.sink(.finished) }
        subscriptions = [:]
        for (_, t) in tickets { t.fail(.disconnected("/")) }
        tickets = [:]
        for (_, c) in completionWaiters { c.fail(.disconnected("/")) }
        for waiter in transactionWaiters { waiter.resume() }  // they find the database closed
        transactionWaiters = []
        completionWaiters = []
        commands.finish()
        outbox.finish()
    }

    func setOnline(_ online: Bool) async {
        explicitlyOffline = !online
        if !online { markDisconnected() }
        await connection.setOnline(online)
    }

    func markDisconnected() {
        connected = false
        for k in listens.keys { listens[k]?.live = false }
    }

    /// Whether the server connection is up now, then every change.
    func watchConnection() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(8))
        let id = nextSubscriptionID.wrappingAdd(1, ordering: .relaxed).oldValue
        connectionWatchers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopWatchingConnection(id) }
        }
        continuation.yield(connected)
        if closed { continuation.finish() }
        return stream
    }

    func stopWatchingConnection(_ id: Int) {
        connectionWatchers[id] = nil
    }

    // MARK: - Persistence

    /// Schedules writing the cache file (once for all the changes within ``cacheSaveInterval``).
    func saveCache() {
        guard store != nil, cacheSave == nil, !closed else { return }
        cacheSave = Task { [weak self] in
            do {
                try await Task.sleep(for: SyncEngine.cacheSaveInterval)
            } catch {
                return  // closed: `shutdown` wrote it
            }
            await self?.writeScheduledCache()
        }
    }

    private func writeScheduledCache() {
        // After close the folder may already belong to the next database.
        guard !closed else { return }
        writeCache()
    }

    func writeCache() {
        cacheSave = nil
        guard let store else { return }
        let cache = PersistenceStore.StoredCache(tree: tree, complete: complete, queries: queryData)
        store.saveCache(cache, activeRoots: listens.keys.map(\.path))
    }

    func saveWrites() {
        store?.saveWrites(writes, nextID: nextWriteID)
    }
}
