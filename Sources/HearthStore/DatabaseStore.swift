public import HearthCore

/// Read access to one namespace's tree inside a consistent snapshot.
///
/// Backends implement this over their own transactions; `Database` builds every REST and streaming
/// read on it.
public protocol StoreReader: OutboxReader {
    /// The whole subtree at `path` (empty when absent).
    func read(_ path: Path) throws -> Node
    /// The children of `path` selected by `query`, in query order. Backends may use indexes.
    func query(_ path: Path, _ query: Query) throws -> Node
    /// `shallow=true`: a leaf as itself, an object as `{key: true}` for its children selected by the
    /// optional key-ordered `query`. Backends may avoid reading the children's subtrees.
    func shallow(_ path: Path, _ query: Query?) throws -> Node
    /// The sequence number of the last committed change visible to this reader.
    func sequence() throws -> UInt64
    /// A named settings document (for example the rules text), if stored.
    func setting(_ name: String) throws -> String?
    /// What is at `path` without its descendants (security rules ask this often). Backends should
    /// answer without reading the subtree.
    func summary(_ path: Path) throws -> NodeSummary
    /// The subtree at `path`, or nil when it holds more than `rowLimit` stored values (leaves and
    /// object priorities): for reads that must stay short (answered on an event loop) and go the
    /// asynchronous way otherwise.
    func read(_ path: Path, rowLimit: Int) throws -> Node?
}

extension StoreReader {
    /// Reads the whole subtree, then counts its stored values (a leaf, or an object's priority)
    /// the way a row store would, giving up past `rowLimit`.
    public func read(_ path: Path, rowLimit: Int) throws -> Node? {
        let node = try read(path)
        var budget = rowLimit
        return Self.fits(node, within: &budget) ? node : nil
    }

    private static func fits(_ node: Node, within budget: inout Int) -> Bool {
        switch node.content {
        case .empty: return true
        case .leaf:
            budget -= 1
            return budget >= 0
        case .children(let children):
            if node.priority != nil {
                budget -= 1
                if budget < 0 { return false }
            }
            for child in children.nodes where !fits(child, within: &budget) { return false }
            return true
        }
    }

    /// The summary of the whole subtree read at `path`; backends with rows override it to read one row.
    public func summary(_ path: Path) throws -> NodeSummary {
        NodeSummary(try read(path))
    }

    /// `query` applied to the whole subtree at `path`: the reference answer an index must reproduce.
    public func query(_ path: Path, _ query: Query) throws -> Node {
        query.apply(to: try read(path))
    }

    /// The shallow form of the subtree at `path`, after `query` when given, read in full.
    public func shallow(_ path: Path, _ query: Query?) throws -> Node {
        let node = try read(path)
        return (query.map { $0.apply(to: node) } ?? node).shallow
    }
}

/// Write access inside a store transaction; everything commits together or not at all.
public protocol StoreTransaction: StoreReader, OutboxWriter {
    /// Replaces the node at `path` (empty deletes it; empty parents vanish; leaf ancestors become objects).
    func set(_ path: Path, _ node: Node) throws
    /// Sets the priority of an existing node (no-op on an empty node).
    func setPriority(_ path: Path, _ priority: Leaf?) throws
    /// Records the sequence number of the change this transaction commits (``StoreReader/sequence()`` returns it).
    func setSequence(_ sequence: UInt64) throws
    /// Stores a named settings document (such as the rules text), replacing any previous value.
    func setSetting(_ name: String, _ value: String) throws
    /// Declares the indexes to maintain (from `.indexOn`); backends without indexes may ignore it.
    func setIndexes(_ specs: [IndexSpec]) throws
    /// For a store that several processes write (PostgreSQL shared by nodes): waits until no other
    /// transaction writes this namespace, holds that until this transaction ends, and returns the
    /// last committed sequence number. Nil for a store only this process writes (its writer's own
    /// count is right).
    func lockSequence() throws -> UInt64?
    /// Keeps this transaction's changes for other processes to replay (a change log); stores that
    /// only this process reads ignore it.
    func logChanges(_ changes: [Change]) throws
    /// The last push id committed in this namespace by any process sharing the store (nil where one
    /// process writes: its generator alone orders the ids).
    func lastPushID() throws -> String?
    /// Records the push id this transaction named a child with.
    func setLastPushID(_ id: String) throws
}

extension StoreTransaction {
    /// One process writes this store: nothing to lock.
    public func lockSequence() throws -> UInt64? { nil }
    /// No other process follows this store: nothing to log.
    public func logChanges(_ changes: [Change]) throws {}
    /// One process names children: nothing shared to order after.
    public func lastPushID() throws -> String? { nil }
    /// One process names children: nothing to record.
    public func setLastPushID(_ id: String) throws {}
}

/// A storage backend for one namespace.
///
/// ```swift
/// let store = try SQLiteStore(path: "data/demo.sqlite")
/// let node = try await store.snapshot { try $0.read(Path("users")) }
/// ```
public protocol DatabaseStore: Sendable {
    /// Runs `body` against a consistent read snapshot; never waits behind a writer.
    func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R
    /// Runs `body` against a consistent read snapshot on the calling thread, when this store can
    /// read without waiting; nil (and `body` not run) when it cannot.
    func snapshotNow<R>(_ body: (any StoreReader) throws -> R) throws -> R?
    /// Runs `body` in one write transaction, committed durably before returning.
    func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R
    /// Releases resources; further calls fail.
    func close() async throws
    /// For a store other processes write too: calls `reload` after one of them stored a setting (the
    /// rules), and after a lost connection to them came back (one may have been missed). Until ``close()``.
    func followSettings(_ reload: @escaping @Sendable () async -> Void)
}

extension DatabaseStore {
    /// Only this process writes the store: its settings never change under it.
    public func followSettings(_ reload: @escaping @Sendable () async -> Void) {}

    /// By default a store cannot read on the calling thread: nil, and `body` is not run.
    public func snapshotNow<R>(_ body: (any StoreReader) throws -> R) throws -> R? { nil }
}

/// Opens the store for a namespace (the executable picks the backend).
///
/// A backend also says which namespaces it holds, so that a server can answer "no such database"
/// for any other name without creating one, and can delete one.
public protocol StoreFactory: Sendable {
    /// Opens (creating when absent) the store of `namespace`.
    func open(namespace: String) async throws -> any DatabaseStore
    /// The namespaces that hold data in this backend (for SQLite, the `<name>.sqlite` files of
    /// its folder). Cheap enough to call now and then, never per request.
    func existingNamespaces() throws -> [String]
    /// Removes a namespace's data for good; its store must have been closed first.
    func delete(namespace: String) async throws
    /// What the namespace's writer reports commits to: `hub` itself, or for a store that several
    /// processes write, an observer that also delivers the other processes' commits to `hub`, in order.
    func observer(for store: any DatabaseStore, delivering hub: any ChangeObserver) async throws -> any ChangeObserver
    /// Roughly how many bytes each namespace's data takes (files on disk, or rows), by namespace name; namespaces it
    /// cannot measure are left out. May read the disk or scan tables: call it now and then (the overview caches it).
    func namespaceSizes() async throws -> [String: Int64]
}

extension StoreFactory {
    /// A backend that cannot list its namespaces holds none the server does not create itself.
    public func existingNamespaces() throws -> [String] { [] }
    /// By default a backend keeps nothing to delete.
    public func delete(namespace: String) async throws {}
    /// By default only this process writes: its commits go to `hub` directly.
    public func observer(for store: any DatabaseStore, delivering hub: any ChangeObserver) async throws -> any ChangeObserver { hub }
    /// By default a backend's sizes are unknown.
    public func namespaceSizes() async throws -> [String: Int64] { [:] }
}
