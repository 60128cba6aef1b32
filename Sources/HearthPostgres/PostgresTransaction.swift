import HearthCore
import HearthStore
import NIOCore
import PostgresNIO

/// A `StoreTransaction` over one namespace's rows, valid only inside the session's transaction.
///
/// The tree has SQLite's layout: a row per leaf (or priority) keyed by ``PathEncoding``, so a subtree
/// is one range scan of the `(ns, p)` primary key in Firebase key order (`bytea` compares bytewise).
/// `.indexOn` indexes are rows of their own, kept by every write (see `PostgresTransaction+Indexes`).
final class PostgresTransaction: StoreTransaction, PostgresOutboxHost {
    let session: PostgresSession
    let namespace: String
    /// Only a write transaction may lock the sequence and change rows.
    let writable: Bool
    /// The outbox's `box` column: the namespace's own events.
    var box: String { namespace }
    private var lockedSequence: UInt64?
    private var pushed: String?
    /// The namespace's built indexes, loaded once per transaction (see `PostgresTransaction+Indexes`).
    var loadedSpecs: [(id: Int64, spec: IndexSpec)]?

    init(session: PostgresSession, namespace: String, writable: Bool) {
        self.session = session
        self.namespace = namespace
        self.writable = writable
    }

    static func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    static func leaf(_ buffer: ByteBuffer?) throws -> Leaf? {
        guard let buffer, buffer.readableBytes > 0 else { return nil }
        return try buffer.withUnsafeReadableBytes { Leaf(json: try JSONValue.parse($0)) }
    }

    static func bytes(_ leaf: Leaf) -> ByteBuffer {
        var w = JSONWriter()
        w.write(leaf)
        return ByteBuffer(bytes: w.bytes)
    }

    private func rows(under path: Path, limit: Int? = nil) throws -> (start: [UInt8], rows: [PostgresRow]) {
        let start = PathEncoding.encode(path)
        let lower = Self.buffer(start)
        let upper = Self.buffer(PathEncoding.subtreeEnd(start))
        let rows: [PostgresRow]
        if let limit {
            rows = try session.query(
                "SELECT p, v, pr FROM hearth_tree WHERE ns = \(namespace) AND p >= \(lower) AND p < \(upper) ORDER BY p LIMIT \(limit)")
        } else {
            rows = try session.query(
                "SELECT p, v, pr FROM hearth_tree WHERE ns = \(namespace) AND p >= \(lower) AND p < \(upper) ORDER BY p")
        }
        return (start, rows)
    }

    func build(_ rows: ArraySlice<PostgresRow>, from start: Int) throws -> Node {
        var builder = NodeBuilder()
        for row in rows {
            let (p, v, pr) = try row.decode((ByteBuffer, ByteBuffer?, ByteBuffer?).self)
            let keys = PathEncoding.decode(p.readableBytesView, from: start)
            builder.add(keys, leaf: try Self.leaf(v), priority: try Self.leaf(pr))
        }
        return builder.finish()
    }

    func read(_ path: Path) throws -> Node {
        let (start, rows) = try rows(under: path)
        return try build(rows[...], from: start.count)
    }

    func read(_ path: Path, rowLimit: Int) throws -> Node? {
        let (start, rows) = try rows(under: path, limit: rowLimit + 1)
        return rows.count > rowLimit ? nil : try build(rows[...], from: start.count)
    }

    func summary(_ path: Path) throws -> NodeSummary {
        let (start, rows) = try rows(under: path, limit: 2)
        guard let first = rows.first else { return .absent }
        let (p, v, pr) = try first.decode((ByteBuffer, ByteBuffer?, ByteBuffer?).self)
        guard p.readableBytesView.elementsEqual(start) else { return .object(priority: nil) }
        let priority = try Self.leaf(pr)
        if let leaf = try Self.leaf(v) { return .leaf(leaf, priority: priority) }
        return rows.count > 1 ? .object(priority: priority) : .absent
    }

    /// From the location's index when one covers the query's order, else by reading the location.
    func query(_ path: Path, _ query: Query) throws -> Node {
        if let node = try indexedQuery(path, query) {
            // No child: the location may be a leaf, which answers like the scan would.
            return node.isEmpty ? query.apply(to: try leafOnly(path)) : node
        }
        return query.apply(to: try read(path))
    }

    /// The leaf at `path` (with its priority, as `read` gives it), or empty: one row.
    private func leafOnly(_ path: Path) throws -> Node {
        guard case .leaf(let leaf, let priority) = try summary(path) else { return .empty }
        return .leaf(leaf, priority: priority)
    }

    // MARK: sequence, settings

    func sequence() throws -> UInt64 {
        if let lockedSequence { return lockedSequence }
        let rows = try session.query("SELECT seq FROM hearth_namespaces WHERE ns = \(namespace)")
        return UInt64(try rows.first?.decode(Int64.self) ?? 0)
    }

    /// Locks the namespace's counter row until this transaction ends: writers of one namespace,
    /// on any node, run one after another, and commit in sequence order.
    func lockSequence() throws -> UInt64? {
        precondition(writable, "a read-only snapshot cannot lock the sequence")
        if let lockedSequence { return lockedSequence }
        let rows = try session.query("SELECT seq FROM hearth_namespaces WHERE ns = \(namespace) FOR UPDATE")
        guard let row = rows.first else {
            throw PostgresStoreError(sqlState: nil, message: "namespace \(namespace) was deleted")
        }
        let value = UInt64(try row.decode(Int64.self))
        lockedSequence = value
        return value
    }

    func setSequence(_ sequence: UInt64) throws {
        try session.execute("UPDATE hearth_namespaces SET seq = \(Int64(sequence)) WHERE ns = \(namespace)")
        lockedSequence = sequence
    }

    /// Each change goes to the change log in this transaction, and one notification names the
    /// namespace and the last sequence number; PostgreSQL delivers it to the other nodes after the commit.
    func logChanges(_ changes: [Change]) throws {
        guard let last = changes.last else { return }
        let sequences = changes.map { Int64($0.sequence) }
        let bodies = changes.map { ByteBuffer(bytes: ChangeCoding.encode($0)) }
        try session.execute(
            "INSERT INTO hearth_changes(ns, seq, body) SELECT \(namespace), * FROM unnest(\(sequences)::bigint[], \(bodies)::bytea[])")
        let payload = ChangeNotice.changes(namespace: namespace, sequence: last.sequence).text
        try session.execute("SELECT pg_notify(\(ChangeNotice.channel), \(payload))")
    }

    /// The namespace's last push id, read once per transaction (the counter row is locked, so no
    /// other node names a child meanwhile) and kept as a setting without a notice.
    func lastPushID() throws -> String? {
        if let pushed { return pushed }
        pushed = try setting(Self.lastPushSetting)
        return pushed
    }

    func setLastPushID(_ id: String) throws {
        try session.execute(
            """
            INSERT INTO hearth_settings(ns, k, v) VALUES (\(namespace), \(Self.lastPushSetting), \(id))
            ON CONFLICT (ns, k) DO UPDATE SET v = excluded.v
            """)
        pushed = id
    }

    static let lastPushSetting = ".push"

    func setting(_ name: String) throws -> String? {
        try session.query("SELECT v FROM hearth_settings WHERE ns = \(namespace) AND k = \(name)").first?.decode(String.self)
    }

    /// Other nodes hear of it at commit and read the setting again.
    func setSetting(_ name: String, _ value: String) throws {
        try session.execute(
            "INSERT INTO hearth_settings(ns, k, v) VALUES (\(namespace), \(name), \(value)) ON CONFLICT (ns, k) DO UPDATE SET v = excluded.v")
        try session.execute("SELECT pg_notify(\(ChangeNotice.channel), \(ChangeNotice.settings(namespace).text))")
    }

    // MARK: writes

    func set(_ path: Path, _ node: Node) throws {
        let encoded = PathEncoding.encode(path)
        try session.execute(
            "DELETE FROM hearth_tree WHERE ns = \(namespace) AND p >= \(Self.buffer(encoded)) AND p < \(Self.buffer(PathEncoding.subtreeEnd(encoded)))"
        )
        var ancestors: [[UInt8]] = []
        if !path.isRoot {
            var prefix: [UInt8] = []
            ancestors.append(prefix)
            for key in path.keys.dropLast() {
                PathEncoding.append(key, to: &prefix)
                ancestors.append(prefix)
            }
        }
        if node.isEmpty {
            try removeEmptyAncestors(ancestors)
            try maintainIndexes(after: path, node: node)
            return
        }
        if !ancestors.isEmpty {
            // A leaf above the write turns into an object, keeping its priority.
            let list = ancestors.map(Self.buffer)
            try session.execute(
                "DELETE FROM hearth_tree WHERE ns = \(namespace) AND p = ANY(\(list)::bytea[]) AND v IS NOT NULL AND pr IS NULL")
            try session.execute("UPDATE hearth_tree SET v = NULL WHERE ns = \(namespace) AND p = ANY(\(list)::bytea[]) AND v IS NOT NULL")
        }
        var paths: [ByteBuffer] = []
        var values: [ByteBuffer] = []
        var priorities: [ByteBuffer] = []
        var key = encoded
        collectRows(node, key: &key) { p, v, pr in
            paths.append(Self.buffer(p))
            values.append(v.map(Self.bytes) ?? ByteBuffer())
            priorities.append(pr.map(Self.bytes) ?? ByteBuffer())
        }
        // Absent values travel as empty byte strings (no stored JSON is empty) and land as NULL.
        try session.execute(
            """
            INSERT INTO hearth_tree(ns, p, v, pr)
            SELECT \(namespace), p, NULLIF(v, ''::bytea), NULLIF(pr, ''::bytea)
            FROM unnest(\(paths)::bytea[], \(values)::bytea[], \(priorities)::bytea[]) AS r(p, v, pr)
            """)
        try maintainIndexes(after: path, node: node)
    }

    private func collectRows(_ node: Node, key: inout [UInt8], _ add: ([UInt8], Leaf?, Leaf?) -> Void) {
        switch node.content {
        case .empty: return
        case .leaf(let l): add(key, l, node.priority)
        case .children(let c):
            if let priority = node.priority { add(key, nil, priority) }
            let base = key.count
            for (k, child) in c {
                PathEncoding.append(k, to: &key)
                collectRows(child, key: &key, add)
                key.removeSubrange(base...)
            }
        }
    }

    /// After a delete, priority-only rows of ancestors left with no descendants are removed.
    private func removeEmptyAncestors(_ ancestors: [[UInt8]]) throws {
        guard !ancestors.isEmpty else { return }
        // Almost always there is no priority-only ancestor: one statement finds that out.
        let list = ancestors.map(Self.buffer)
        let found = try session.query("SELECT p FROM hearth_tree WHERE ns = \(namespace) AND p = ANY(\(list)::bytea[]) AND v IS NULL")
        var candidates: [[UInt8]] = []
        for row in found { candidates.append(Array(try row.decode(ByteBuffer.self).readableBytesView)) }
        // Deepest first: removing a child may leave its parent empty.
        for a in candidates.sorted(by: { $0.count > $1.count }) {
            let here = Self.buffer(a)
            let end = Self.buffer(PathEncoding.subtreeEnd(a))
            try session.execute(
                """
                DELETE FROM hearth_tree WHERE ns = \(namespace) AND p = \(here) AND v IS NULL
                AND NOT EXISTS (SELECT 1 FROM hearth_tree WHERE ns = \(namespace) AND p > \(here) AND p < \(end))
                """)
        }
    }

    func setPriority(_ path: Path, _ priority: Leaf?) throws {
        let encoded = PathEncoding.encode(path)
        let here = Self.buffer(encoded)
        let end = Self.buffer(PathEncoding.subtreeEnd(encoded))
        let exists = try session.query("SELECT 1 FROM hearth_tree WHERE ns = \(namespace) AND p >= \(here) AND p < \(end) LIMIT 1")
        guard !exists.isEmpty else { return }
        if let priority {
            try session.execute(
                """
                INSERT INTO hearth_tree(ns, p, v, pr) VALUES (\(namespace), \(here), NULL, \(Self.bytes(priority)))
                ON CONFLICT (ns, p) DO UPDATE SET pr = excluded.pr
                """)
        } else {
            try session.execute("UPDATE hearth_tree SET pr = NULL WHERE ns = \(namespace) AND p = \(here)")
            try session.execute("DELETE FROM hearth_tree WHERE ns = \(namespace) AND p = \(here) AND v IS NULL AND pr IS NULL")
        }
    }
}
