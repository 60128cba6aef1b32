import HearthCore
import Synchronization

/// A `DatabaseStore` that keeps everything in memory: for tests and as the reference behaviour.
public final class MemoryStore: DatabaseStore {
    struct State: Sendable {
        var root = Node.empty
        var sequence: UInt64 = 0
        var settings: [String: String] = [:]
        var outbox = MemoryOutbox()
    }

    private let state = Mutex(State())
    private let writeLock = Mutex(())

    /// An empty store.
    public init() {}

    final class Transaction: StoreTransaction, MemoryOutboxHost {
        var state: State

        init(_ state: State) {
            self.state = state
        }

        func read(_ path: Path) throws -> Node { state.root.child(at: path) }
        func sequence() throws -> UInt64 { state.sequence }
        func setting(_ name: String) throws -> String? { state.settings[name] }

        func set(_ path: Path, _ node: Node) throws {
            if node.isEmpty, state.root.child(at: path).isEmpty { return }
            state.root = state.root.setting(path, to: node)
        }

        func setPriority(_ path: Path, _ priority: Leaf?) throws {
            let n = state.root.child(at: path)
            guard !n.isEmpty else { return }
            state.root = state.root.setting(path, to: n.withPriority(priority))
        }

        func setSequence(_ sequence: UInt64) throws { state.sequence = sequence }
        func setSetting(_ name: String, _ value: String) throws { state.settings[name] = value }
        /// The memory store answers every query by scanning, so there is nothing to maintain.
        func setIndexes(_ specs: [IndexSpec]) throws {}

        var outbox: MemoryOutbox {
            get { state.outbox }
            set { state.outbox = newValue }
        }
    }

    /// Runs `body` on a copy of the current state: later writes do not show in it.
    public func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R {
        let copy = state.withLock { $0 }
        return try body(Transaction(copy))
    }

    /// Like ``snapshot(_:)``, on the calling thread; never nil.
    public func snapshotNow<R>(_ body: (any StoreReader) throws -> R) throws -> R? {
        try body(Transaction(state.withLock { $0 }))
    }

    /// Runs `body` on a copy and publishes it when `body` returns (writers take turns); a throw leaves the store unchanged.
    public func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R {
        try writeLock.withLock { _ in
            let tx = Transaction(state.withLock { $0 })
            let result = try body(tx)
            let newState = tx.state
            state.withLock { $0 = newState }
            return result
        }
    }

    /// Does nothing: there is nothing to release.
    public func close() async throws {}
}

/// Creates one `MemoryStore` per namespace and keeps it, so a namespace closed while idle and
/// opened again still holds its data (for as long as the factory lives).
public final class MemoryStoreFactory: StoreFactory {
    private let stores = Mutex<[String: MemoryStore]>([:])

    /// A factory holding no namespaces.
    public init() {}

    /// The namespace's store, made on first use and kept until deleted.
    public func open(namespace: String) async throws -> any DatabaseStore {
        stores.withLock { s in
            if let store = s[namespace] { return store }
            let store = MemoryStore()
            s[namespace] = store
            return store
        }
    }

    /// The namespaces opened so far and not deleted.
    public func existingNamespaces() throws -> [String] { stores.withLock { Array($0.keys) } }

    /// Forgets the namespace's store and its data.
    public func delete(namespace: String) async throws { _ = stores.withLock { $0.removeValue(forKey: namespace) } }
}
