import HearthCore
import HearthStore
import Logging
import Synchronization

/// Which namespaces exist, and the open ones among them.
///
/// Outside `--dev` a namespace exists once an admin created it (``create(_:rules:)``), or when its
/// data is already there (the project's default namespace always exists); any other name is
/// answered from memory, without touching the disk. In `--dev` every valid name is created on first
/// use, as the emulator does.
///
/// Requests and connections hold a namespace with a lease (``lease(_:onDelete:)`` /
/// ``release(_:)``). A namespace that nobody holds and that has no stream listeners for
/// `idleMillis` is closed by ``closeIdle()``; at most `maxOpen` are open at once, and opening one
/// more closes the least recently used idle one, or fails with ``NamespaceError/Code/busy``.
/// Open namespaces are found under a lock without a suspension (every request asks).
package final class NamespaceRegistry: Sendable {
    package struct Limits: Sendable {
        /// Create any valid name on first use (`--dev`).
        package var createOnFirstUse = false
        /// Most namespaces open at once.
        package var maxOpen = 64
        /// Unheld for this long, a namespace is closed by ``NamespaceRegistry/closeIdle()``.
        package var idleMillis: Int64 = 120_000
        /// A name missing from memory makes the registry look at the backend again (for
        /// namespaces created by `hearth namespaces create` while the server runs) at most this often.
        package var rescanMillis: Int64 = 2_000

        /// The limits, each defaulting as above.
        package init(createOnFirstUse: Bool = false, maxOpen: Int = 64, idleMillis: Int64 = 120_000, rescanMillis: Int64 = 2_000) {
            self.createOnFirstUse = createOnFirstUse
            self.maxOpen = maxOpen
            self.idleMillis = idleMillis
            self.rescanMillis = rescanMillis
        }
    }

    private struct Entry {
        var namespace: Namespace
        var leases = 0
        var lastUsed: Int64
        /// Never closed as idle (namespaces whose outbox a functions dispatcher reads).
        var pinned = false
        /// Being deleted: no new leases.
        var deleting = false
        /// What ends each holder that asked to be ended on deletion (realtime connections).
        var closers: [UInt64: @Sendable () -> Void] = [:]
    }

    private struct State {
        var open: [String: Entry] = [:]
        var opening: [String: Task<Namespace, any Error>] = [:]
        var closing: [String: Task<Void, Never>] = [:]
        /// Every namespace that exists (open or not).
        var known: Set<String>
        var deleting: Set<String> = []
        var nextLease: UInt64 = 1
        var lastScan: Int64
    }

    private let state: Mutex<State>
    private let factory: any StoreFactory
    private let clock: @Sendable () -> Int64
    private let initialRules: RulesDocument
    private let triggers: (any NamespaceTriggers)?
    private let logger: Logger
    let defaultNamespace: String
    let limits: Limits

    package init(
        factory: any StoreFactory, clock: @escaping @Sendable () -> Int64, initialRules: RulesDocument, defaultNamespace: String,
        limits: Limits = Limits(), triggers: (any NamespaceTriggers)? = nil, logger: Logger = Logger(label: "hearth")
    ) {
        self.factory = factory
        self.clock = clock
        self.initialRules = initialRules
        self.triggers = triggers
        self.logger = logger
        self.defaultNamespace = defaultNamespace
        self.limits = limits
        var known = Set(Self.scan(factory, logger: logger))
        known.insert(defaultNamespace)
        state = Mutex(State(known: known, lastScan: clock()))
    }

    /// A namespace name: 1–63 characters of letters, digits, `-` and `_`.
    package static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 63 else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }

    private static func scan(_ factory: any StoreFactory, logger: Logger) -> [String] {
        do {
            return try factory.existingNamespaces().filter(isValid)
        } catch {
            logger.error("cannot list the databases", metadata: ["hearth.error": "\(error)"])
            return []
        }
    }

    /// What an opening loop does next.
    private enum Step: Sendable {
        case leased(NamespaceLease)
        case wait(Task<Namespace, any Error>)
        case waitClosed(Task<Void, Never>)
        case rescan
    }

    // MARK: Leases

    /// Holds `name`, opening it when it exists (or, with `createOnFirstUse`, creating it).
    /// - Parameter onDelete: called if the namespace is deleted while held (to end a connection).
    package func lease(_ name: String, onDelete: (@Sendable () -> Void)? = nil) async throws(NamespaceError) -> NamespaceLease {
        if let lease = leaseIfOpen(name, onDelete: onDelete) { return lease }
        guard Self.isValid(name) else { throw NamespaceError.notFound }
        var rescanned = false
        for _ in 0..<64 {
            let now = clock()
            let step: Step = try state.withLock { s throws(NamespaceError) -> Step in
                if let lease = Self.take(&s, name, onDelete: onDelete) { return .leased(lease) }
                if s.deleting.contains(name) { throw NamespaceError.notFound }
                if let task = s.opening[name] { return .wait(task) }
                if let task = s.closing[name] { return .waitClosed(task) }
                if !s.known.contains(name) && !limits.createOnFirstUse {
                    guard !rescanned, now - s.lastScan >= limits.rescanMillis else { throw NamespaceError.notFound }
                    s.lastScan = now
                    return .rescan
                }
                if let evicted = try makeRoom(&s) { return .waitClosed(evicted) }
                return .wait(startOpening(&s, name, rules: nil))
            }
            switch step {
            case .leased(let lease): return lease
            case .wait(let task):
                do {
                    _ = try await task.value
                } catch let error as NamespaceError {
                    throw error
                } catch {
                    logger.error("cannot open namespace", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
                    throw NamespaceError(.unavailable, "Database unavailable")
                }
            case .waitClosed(let task): await task.value
            case .rescan:
                rescanned = true
                let found = Self.scan(factory, logger: logger)
                state.withLock { s in
                    for n in found where !s.deleting.contains(n) { s.known.insert(n) }
                }
            }
        }
        throw NamespaceError(.busy, "Too many databases are being opened at once; try again")
    }

    /// A lease on `name` if it is open now (nil: it would have to be opened, or it does not exist).
    package func leaseIfOpen(_ name: String, onDelete: (@Sendable () -> Void)? = nil) -> NamespaceLease? {
        state.withLock { Self.take(&$0, name, onDelete: onDelete) }
    }

    /// A held namespace is never idle, so only ``release(_:)`` notes the time.
    private static func take(_ s: inout State, _ name: String, onDelete: (@Sendable () -> Void)?) -> NamespaceLease? {
        guard s.open[name]?.deleting == false else { return nil }
        let id = s.nextLease
        s.nextLease += 1
        s.open[name]!.leases += 1
        if let onDelete { s.open[name]!.closers[id] = onDelete }
        return NamespaceLease(namespace: s.open[name]!.namespace, id: id)
    }

    /// Gives a lease back.
    package func release(_ lease: NamespaceLease) {
        let now = clock()
        state.withLock { s in
            let name = lease.namespace.name
            guard s.open[name]?.namespace === lease.namespace else { return }
            s.open[name]!.leases -= 1
            s.open[name]!.lastUsed = now
            if s.open[name]!.closers[lease.id] != nil { s.open[name]!.closers[lease.id] = nil }
        }
    }

    /// Runs `body` with `name` held.
    package func withNamespace<R: Sendable>(_ name: String, _ body: (Namespace) async throws -> R) async throws -> R {
        let lease = try await lease(name)
        defer { release(lease) }
        return try await body(lease.namespace)
    }

    /// Opens `name` and keeps it open for the server's lifetime (a namespace whose outbox a
    /// function's database trigger reads). The app's code declares it, so it is created when
    /// absent, locked like one the admin creates (in `--dev`, on first use with open rules).
    package func pin(_ name: String) async throws(NamespaceError) -> Namespace {
        if !limits.createOnFirstUse && !state.withLock({ $0.known.contains(name) }) {
            do {
                try await create(name, rules: nil)
            } catch where error.code == .exists {
                // Found on disk, or created meanwhile.
            }
        }
        let lease = try await lease(name)
        state.withLock { s in s.open[name]?.pinned = true }
        release(lease)
        return lease.namespace
    }

    // MARK: Opening and closing

    /// Closes the least recently used idle namespace when the open ones are at the limit.
    private func makeRoom(_ s: inout State) throws(NamespaceError) -> Task<Void, Never>? {
        guard s.open.count + s.opening.count >= limits.maxOpen else { return nil }
        let victim = s.open.filter { Self.isIdle($0.value) }.min { $0.value.lastUsed < $1.value.lastUsed }
        guard let (name, entry) = victim else {
            throw NamespaceError(.busy, "Too many databases are in use; try again later")
        }
        return startClosing(&s, name, entry)
    }

    private static func isIdle(_ e: Entry) -> Bool {
        e.leases == 0 && !e.pinned && !e.deleting && e.namespace.hub.listenerCount == 0
    }

    private func startClosing(_ s: inout State, _ name: String, _ entry: Entry) -> Task<Void, Never> {
        s.open[name] = nil
        let logger = self.logger
        let namespace = entry.namespace
        let task = Task<Void, Never> { [weak self] in
            namespace.hub.closeAll()
            do {
                try await namespace.database.store.close()
            } catch {
                logger.error("cannot close namespace", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
            }
            self?.state.withLock { _ = $0.closing.removeValue(forKey: name) }
        }
        s.closing[name] = task
        return task
    }

    /// Opens `name`; with `rules`, creates it with those rules (stored, so they hold after a restart).
    private func startOpening(_ s: inout State, _ name: String, rules: RulesDocument?) -> Task<Namespace, any Error> {
        let task = Task<Namespace, any Error> { [self] in
            do {
                let namespace = try await open(name, creatingWith: rules)
                let now = clock()
                state.withLock { s in
                    s.opening[name] = nil
                    s.known.insert(name)
                    s.open[name] = Entry(namespace: namespace, lastUsed: now)
                }
                return namespace
            } catch {
                state.withLock { _ = $0.opening.removeValue(forKey: name) }
                throw error
            }
        }
        s.opening[name] = task
        return task
    }

    private func open(_ name: String, creatingWith created: RulesDocument?) async throws -> Namespace {
        let store = try await factory.open(namespace: name)
        if let created {
            let text = created.source
            let specs = created.indexSpecs
            try await store.write { tx in
                try tx.setSetting("rules", text)
                try tx.setIndexes(specs)
            }
        }
        let hub = RealtimeHub()
        // Database triggers: their events are enqueued in the writer's transactions, and the
        // namespace's outbox dispatcher is woken after each commit that enqueued some.
        let wake = triggers?.opened(name, store: store)
        let database = try await Database(
            name: name, store: store, observer: try await factory.observer(for: store, delivering: hub), clock: clock, triggers: triggers?.triggers(for: name) ?? [],
            onEventsQueued: wake ?? {})
        let source = try await store.snapshot { try $0.setting("rules") }
        // A stored document that no longer compiles denies everything until an admin replaces it.
        let rules = source.map { s in (try? RulesDocument(source: s)) ?? .denyAll } ?? initialRules
        let namespace = Namespace(name: name, database: database, hub: hub, rules: rules)
        // Another node may replace the rules of a store it shares with this one.
        store.followSettings { [weak namespace, logger] in
            do {
                try await namespace?.reloadRules()
            } catch {
                logger.error("cannot reload the rules", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
            }
        }
        return namespace
    }

    /// Closes the namespaces nobody has held for `idleMillis` (none with listeners); returns their names.
    @discardableResult
    package func closeIdle() async -> [String] {
        let now = clock()
        let idleMillis = limits.idleMillis
        let closed = state.withLock { s -> [(String, Task<Void, Never>)] in
            let idle = s.open.filter { Self.isIdle($0.value) && now - $0.value.lastUsed >= idleMillis }
            var tasks: [(String, Task<Void, Never>)] = []
            for (name, entry) in idle { tasks.append((name, startClosing(&s, name, entry))) }
            return tasks
        }
        for (_, task) in closed { await task.value }
        return closed.map(\.0).sorted()
    }

    // MARK: Administration

    /// Creates `name` with `rules` (locked, `.read`/`.write` false, when nil).
    package func create(_ name: String, rules: RulesDocument?) async throws(NamespaceError) {
        guard Self.isValid(name) else {
            throw NamespaceError(.invalid, "A database name is 1-63 letters, digits, - or _")
        }
        if !state.withLock({ $0.known.contains(name) }) {
            // One that `hearth namespaces create` made while the server ran counts as existing.
            let found = Self.scan(factory, logger: logger)
            state.withLock { s in for n in found where !s.deleting.contains(n) { s.known.insert(n) } }
        }
        while true {
            let step = try state.withLock { s throws(NamespaceError) -> Step in
                guard !s.known.contains(name), s.opening[name] == nil, s.open[name] == nil, !s.deleting.contains(name) else {
                    throw NamespaceError(.exists, "Database \(name) already exists")
                }
                if let task = s.closing[name] { return .waitClosed(task) }
                if let evicted = try makeRoom(&s) { return .waitClosed(evicted) }
                return .wait(startOpening(&s, name, rules: rules ?? .denyAll))
            }
            switch step {
            case .waitClosed(let task): await task.value
            case .wait(let task):
                do {
                    _ = try await task.value
                    return
                } catch {
                    logger.error("cannot create namespace", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
                    throw NamespaceError(.unavailable, "Database unavailable")
                }
            case .leased, .rescan: return
            }
        }
    }

    /// Deletes `name` and its data: new requests get 404 at once, streams and connections on it
    /// end, and its store is closed and removed once the requests in flight finished.
    package func delete(_ name: String) async throws(NamespaceError) {
        guard name != defaultNamespace else { throw NamespaceError(.invalid, "The project's default database cannot be deleted") }
        guard Self.isValid(name) else { throw NamespaceError.notFound }
        if !state.withLock({ $0.known.contains(name) }) {
            let found = Self.scan(factory, logger: logger)
            state.withLock { s in for n in found where !s.deleting.contains(n) { s.known.insert(n) } }
        }
        let closers = try state.withLock { s throws(NamespaceError) -> [@Sendable () -> Void] in
            guard s.known.contains(name), !s.deleting.contains(name) else { throw NamespaceError.notFound }
            s.known.remove(name)
            s.deleting.insert(name)
            s.open[name]?.deleting = true
            return s.open[name].map { Array($0.closers.values) } ?? []
        }
        for close in closers { close() }
        // Wait for an opening or closing in progress, then for the holders to let go.
        while true {
            let (opening, closing, entry) = state.withLock { s in (s.opening[name], s.closing[name], s.open[name]) }
            if let opening { _ = try? await opening.value; state.withLock { s in s.open[name]?.deleting = true }; continue }
            if let closing { await closing.value; continue }
            guard let entry else { break }
            entry.namespace.hub.closeAll()
            if entry.leases == 0 {
                state.withLock { s in s.open[name] = nil }
                try? await entry.namespace.database.store.close()
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        do {
            try await factory.delete(namespace: name)
        } catch {
            logger.error("cannot remove a deleted namespace's data", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
            state.withLock { s in
                s.deleting.remove(name)
                s.known.insert(name)
            }
            throw NamespaceError(.unavailable, "The database's files could not be removed")
        }
        state.withLock { s in _ = s.deleting.remove(name) }
    }

    // MARK: Listing and shutdown

    /// Roughly how many bytes each namespace's data takes, as the store factory measures it (empty when it cannot).
    package func namespaceSizes() async throws -> [String: Int64] { try await factory.namespaceSizes() }

    /// Every namespace that exists, sorted.
    package var names: [String] { state.withLock { $0.known.sorted() } }

    /// The namespaces open now.
    package var openNamespaces: [Namespace] { state.withLock { $0.open.values.map(\.namespace) } }

    /// How many are open now (or being opened).
    var openCount: Int { state.withLock { $0.open.count + $0.opening.count } }

    /// Open stream listeners across all namespaces.
    package var listenerCount: Int { openNamespaces.reduce(0) { $0 + $1.hub.listenerCount } }

    /// Ends every stream (graceful shutdown), so in-flight streaming responses can finish.
    package func closeStreams() {
        for ns in openNamespaces { ns.hub.closeAll() }
    }

    package func closeAll() async {
        let (opening, closing) = state.withLock { s in (Array(s.opening.values), Array(s.closing.values)) }
        for task in opening { _ = try? await task.value }
        for task in closing { await task.value }
        let entries = state.withLock { s in
            let all = Array(s.open.values)
            s.open = [:]
            return all
        }
        for entry in entries {
            entry.namespace.hub.closeAll()
            try? await entry.namespace.database.store.close()
        }
    }
}
