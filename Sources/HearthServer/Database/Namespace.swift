import HearthCore
import HearthStore
import Synchronization

/// One open database: its writer, its listeners and its rules.
final class Namespace: Sendable {
    let name: String
    let database: Database
    let hub: RealtimeHub
    private let rulesBox: Mutex<RulesDocument>

    init(name: String, database: Database, hub: RealtimeHub, rules: RulesDocument) {
        self.name = name
        self.database = database
        self.hub = hub
        self.rulesBox = Mutex(rules)
    }

    var rules: RulesDocument { rulesBox.withLock { $0 } }

    func replaceRules(_ rules: RulesDocument) { rulesBox.withLock { $0 = rules } }
}

/// Opens namespaces lazily, once each, and closes them all on shutdown.
///
/// Open namespaces are found under a lock without an actor hop (every request asks); only opening
/// goes through the actor.
final class NamespaceRegistry: Sendable {
    private let opened = Mutex<[String: Namespace]>([:])
    private let opener: NamespaceOpener

    init(factory: any StoreFactory, clock: @escaping @Sendable () -> Int64, initialRules: RulesDocument, functions: FunctionsRuntime? = nil) {
        opener = NamespaceOpener(factory: factory, clock: clock, initialRules: initialRules, functions: functions)
    }

    static func isValid(_ name: String) -> Bool { NamespaceOpener.isValid(name) }

    func namespace(_ name: String) async throws -> Namespace {
        if let ns = opened.withLock({ $0[name] }) { return ns }
        let ns = try await opener.namespace(name)
        opened.withLock { $0[name] = ns }
        return ns
    }

    /// The namespace if it is already open (nil: opening it would have to wait).
    func openNamespace(_ name: String) -> Namespace? {
        opened.withLock { $0[name] }
    }

    var names: [String] { opened.withLock { $0.keys.sorted() } }

    /// Open stream listeners across all namespaces.
    var listenerCount: Int { opened.withLock { $0.values.reduce(0) { $0 + $1.hub.listenerCount } } }

    /// Ends every stream (graceful shutdown), so in-flight streaming responses can finish.
    func closeStreams() {
        for ns in opened.withLock({ Array($0.values) }) { ns.hub.closeAll() }
    }

    func closeAll() async {
        opened.withLock { $0 = [:] }
        await opener.closeAll()
    }
}

actor NamespaceOpener {
    private let factory: any StoreFactory
    private let clock: @Sendable () -> Int64
    private let initialRules: RulesDocument
    private let functions: FunctionsRuntime?
    private var open: [String: Task<Namespace, any Error>] = [:]

    init(factory: any StoreFactory, clock: @escaping @Sendable () -> Int64, initialRules: RulesDocument, functions: FunctionsRuntime?) {
        self.initialRules = initialRules
        self.functions = functions
        self.factory = factory
        self.clock = clock
    }

    /// A namespace name: 1–63 characters of letters, digits, `-` and `_`.
    static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 63 else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }

    func namespace(_ name: String) async throws -> Namespace {
        if let task = open[name] { return try await task.value }
        let factory = self.factory
        let clock = self.clock
        let functions = self.functions
        // A child task per namespace opening, so concurrent first requests share one open.
        let task = Task<Namespace, any Error> {
            let store = try await factory.open(namespace: name)
            let hub = RealtimeHub()
            // Database triggers: their events are enqueued in the writer's transactions, and the
            // namespace's outbox dispatcher is woken after each commit that enqueued some.
            let wake = functions?.databaseOpened(name, store: store)
            let database = try await Database(
                name: name, store: store, observer: hub, clock: clock, triggers: functions?.triggers(for: name) ?? [],
                onEventsQueued: wake ?? {})
            let source = try await store.snapshot { try $0.setting("rules") }
            // A stored document that no longer compiles denies everything until an admin replaces it.
            let rules = source.map { s in (try? RulesDocument(source: s)) ?? .denyAll } ?? initialRules
            return Namespace(name: name, database: database, hub: hub, rules: rules)
        }
        open[name] = task
        do {
            return try await task.value
        } catch {
            open[name] = nil
            throw error
        }
    }

    /// Ends all streams and closes every store.
    func closeAll() async {
        for (_, task) in open {
            if let ns = try? await task.value {
                ns.hub.closeAll()
                try? await ns.database.store.close()
            }
        }
        open = [:]
    }
}
