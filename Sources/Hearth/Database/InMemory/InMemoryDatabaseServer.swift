public import Foundation
public import HearthCore
import Synchronization

/// A database server that lives in the process: a JSON tree with listens, writes, server values,
/// compare-and-set and onDisconnect — the realtime protocol without a socket.
///
/// Use it to unit-test code built on ``Database`` without running a server, and share one between
/// several databases to test contention:
/// ```swift
/// let server = InMemoryDatabaseServer(json: ["rooms": ["r1": ["title": "Lobby"]]])
/// let alice = Database.inMemory(server: server)
/// let bob = Database.inMemory(server: server)
/// try await alice.reference("rooms/r1/title").setValue("Hall")
/// #expect(try await bob.reference("rooms/r1/title").getValue(as: String.self) == "Hall")
/// ```
public actor InMemoryDatabaseServer {
    /// An access the optional rule is asked about.
    public struct Access: Sendable, Hashable {
        /// Reading (listen, get) or writing (set, update, onDisconnect).
        public enum Kind: Sendable, Hashable {
            /// `read` is a listen or a one-time get; `write` is a set, an update, or an onDisconnect operation being registered.
            case read, write
        }

        /// Whether the request reads or writes.
        public var kind: Kind
        /// The path, `/a/b`.
        public var path: String
    }

    struct ListenKey: Hashable {
        var path: Path
        var query: Query?
        var tag: Int?
    }

    enum DisconnectOperation {
        case put(Path, JSONValue)
        case merge(Path, [JSONMember])
    }

    struct Client {
        var continuation: AsyncStream<RealtimeEvent>.Continuation
        var attached = false
        var listens: [ListenKey: Node] = [:]
        var onDisconnect: [DisconnectOperation] = []
    }

    private var tree: Node
    private var clients: [Int: Client] = [:]
    private var rule: (@Sendable (Access) -> Bool)?
    private let now: @Sendable () -> Int64
    private nonisolated let nextClientID = Atomic<Int>(1)

    /// Creates a server holding `json` (export format accepted: `.priority`/`.value`).
    /// - Parameter now: the server clock in milliseconds since 1970.
    public init(json: JSONValue = .null, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.tree = (try? Node(json: json)) ?? .empty
        self.now = now
    }

    /// The data at a path as plain JSON (for assertions).
    public func value(at path: String) -> JSONValue {
        DatabaseCoding.plainJSON(tree.child(at: Path(path)))
    }

    /// Writes as an administrator (no rules), notifying listeners.
    public func setValue(json: JSONValue, at path: String) throws {
        try commit(Path(path), json, hash: nil)
    }

    /// Installs an access rule (nil allows everything); refused requests get `permission_denied`.
    public func setRule(_ rule: (@Sendable (Access) -> Bool)?) {
        self.rule = rule
    }

    /// How many clients are connected now.
    public var connectedClients: Int { clients.values.count { $0.attached } }

    // MARK: - Connection side

    nonisolated func makeClientID() -> Int { nextClientID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func check(_ kind: Access.Kind, _ path: Path) throws(RealtimeError) {
        if let rule, !rule(Access(kind: kind, path: path.description)) {
            throw RealtimeError(status: "permission_denied", message: "Permission denied")
        }
    }

    func attach(_ id: Int, continuation: AsyncStream<RealtimeEvent>.Continuation) {
        var client = clients[id] ?? Client(continuation: continuation)
        guard !client.attached else { return }
        client.attached = true
        continuation.yield(.connected(serverTimeOffset: 0))
        for key in client.listens.keys {
            let result = self.result(key)
            client.listens[key] = result
            continuation.yield(.overwrite(path: key.path, data: DatabaseCoding.exportJSON(result), tag: key.tag))
            continuation.yield(.listenAcknowledged(path: key.path, query: key.query))
        }
        clients[id] = client
    }

    /// The connection dropped: run its onDisconnect operations, keep its listens for a reconnect.
    func detach(_ id: Int, forget: Bool) {
        guard var client = clients[id] else { return }
        let wasAttached = client.attached
        client.attached = false
        let operations = client.onDisconnect
        client.onDisconnect = []
        clients[id] = forget ? nil : client
        if wasAttached { client.continuation.yield(.disconnected) }
        for op in operations {
            switch op {
            case .put(let path, let data): try? commit(path, data, hash: nil)
            case .merge(let path, let data): try? commitMerge(path, data)
            }
        }
    }

    func isAttached(_ id: Int) -> Bool { clients[id]?.attached == true }

    func listen(_ id: Int, path: Path, query: Query?, tag: Int?) throws(RealtimeError) {
        guard var client = clients[id], client.attached else { throw .notAttached }
        try check(.read, path)
        let key = ListenKey(path: path, query: query, tag: tag)
        let result = self.result(key)
        client.listens[key] = result
        clients[id] = client
        client.continuation.yield(.overwrite(path: path, data: DatabaseCoding.exportJSON(result), tag: tag))
        client.continuation.yield(.listenAcknowledged(path: path, query: query))
    }

    func unlisten(_ id: Int, path: Path, query: Query?, tag: Int?) {
        clients[id]?.listens[ListenKey(path: path, query: query, tag: tag)] = nil
    }

    func get(_ id: Int, path: Path, query: Query?) throws(RealtimeError) -> JSONValue {
        guard clients[id]?.attached == true else { throw .notAttached }
        try check(.read, path)
        return DatabaseCoding.exportJSON(result(ListenKey(path: path, query: query, tag: nil)))
    }

    func put(_ id: Int, path: Path, data: JSONValue, hash: String?) throws(RealtimeError) {
        guard clients[id]?.attached == true else { throw .notAttached }
        try check(.write, path)
        try commit(path, data, hash: hash)
    }

    func merge(_ id: Int, path: Path, data: [JSONMember]) throws(RealtimeError) {
        guard clients[id]?.attached == true else { throw .notAttached }
        for m in data { try check(.write, path.appending(Path(m.key))) }
        try commitMerge(path, data)
    }

    func onDisconnect(_ id: Int, path: Path, operation: DisconnectOperation?) throws(RealtimeError) {
        guard clients[id]?.attached == true else { throw .notAttached }
        try check(.write, path)
        if let operation {
            clients[id]?.onDisconnect.append(operation)
        } else {
            clients[id]?.onDisconnect.removeAll { op in
                switch op {
                case .put(let p, _), .merge(let p, _): return path.isAncestor(ofOrEqualTo: p)
                }
            }
        }
    }

    // MARK: - Commits

    private func result(_ key: ListenKey) -> Node {
        let node = tree.child(at: key.path)
        guard let q = key.query, !q.isUnfiltered else { return node }
        return q.apply(to: node)
    }

    private func parse(_ json: JSONValue, at path: Path) throws(RealtimeError) -> Node {
        do {
            let parsed = try Node.parseWrite(json, depth: path.count)
            return try parsed.resolved(now: now()) { rel in tree.child(at: path.appending(rel)) }
        } catch {
            throw RealtimeError(status: "invalid_data", message: (error as? ValidationError)?.message ?? "\(error)")
        }
    }

    private func commit(_ path: Path, _ json: JSONValue, hash: String?) throws(RealtimeError) {
        if let hash, tree.child(at: path).hash != hash {
            throw RealtimeError(status: "datastale", message: "Transaction hash does not match")
        }
        let node = try parse(json, at: path)
        tree = tree.setting(path, to: node)
        fanOut(changed: [(path, node)], mergeAt: nil)
    }

    private func commitMerge(_ path: Path, _ members: [JSONMember]) throws(RealtimeError) {
        var entries: [(Path, Node)] = []
        for m in members {
            guard let rel = try? Path.validated(m.key), !rel.isRoot else {
                throw RealtimeError(status: "invalid_data", message: "Invalid update path")
            }
            entries.append((path.appending(rel), try parse(m.value, at: path.appending(rel))))
        }
        for (p, node) in entries { tree = tree.setting(p, to: node) }
        fanOut(changed: entries, mergeAt: path)
    }

    /// Tells every listen touched by a commit: untagged listens at or above the change get the
    /// change itself (a merge as `m`), listens below it their new value; tagged listens get their
    /// whole new result when it changed.
    private func fanOut(changed: [(Path, Node)], mergeAt mergePath: Path?) {
        for (id, var client) in clients where client.attached {
            for (key, lastSent) in client.listens {
                let related = changed.contains { key.path.isAncestor(ofOrEqualTo: $0.0) || $0.0.isAncestor(ofOrEqualTo: key.path) }
                guard related else { continue }
                let current = result(key)
                if key.tag != nil || key.query.map({ !$0.isUnfiltered }) == true {
                    guard current != lastSent else { continue }
                    client.continuation.yield(.overwrite(path: key.path, data: DatabaseCoding.exportJSON(current), tag: key.tag))
                } else if let mergePath, key.path.isAncestor(ofOrEqualTo: mergePath) {
                    let members = changed.map { p, n in
                        JSONMember(mergePath.relative(p)!.keys.map(\.string).joined(separator: "/"), DatabaseCoding.exportJSON(n))
                    }
                    client.continuation.yield(.merge(path: mergePath, data: members, tag: nil))
                } else if mergePath == nil, let first = changed.first, key.path.isAncestor(ofOrEqualTo: first.0) {
                    client.continuation.yield(.overwrite(path: first.0, data: DatabaseCoding.exportJSON(first.1), tag: nil))
                } else {
                    client.continuation.yield(.overwrite(path: key.path, data: DatabaseCoding.exportJSON(current), tag: nil))
                }
                client.listens[key] = current
            }
            clients[id] = client
        }
    }
}

extension RealtimeError {
    /// The in-memory connection is not attached right now (the call waits and retries).
    static let notAttached = RealtimeError(status: "not_attached", message: "Not connected")
}
