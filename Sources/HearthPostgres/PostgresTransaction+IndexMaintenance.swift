import HearthCore
import HearthStore
import NIOCore
import PostgresNIO

/// Index rows follow every write of the tree in the same transaction. A write at or above an indexed
/// location replaces the rows of the locations below it from the written node; a write below one of
/// its children changes that child's row, computed from the written node when it says enough (almost
/// always), otherwise read back from the tree (a delete below a child). The rows of all specs a write
/// touches go in one or two statements.
extension PostgresTransaction {
    /// What a write below a child does to the child's index row.
    enum ChildEffect: Equatable {
        /// The child's new value under the index; nil when the child no longer exists.
        case value(IndexValue?)
        /// The child exists and its value is what it was, or null if the child is new (the write landed
        /// beside the value path).
        case unchangedOrNull
        /// Only the tree can tell (something below the child was deleted).
        case unknown
    }

    /// The effect on a child's index row of writing `node` at `rest` (relative to the child), for an
    /// index on `valuePath` below the child (nil: the child's own value, `.value`).
    static func effect(of node: Node, at rest: Path, valuePath: Path?) -> ChildEffect {
        let target = valuePath ?? Path()
        if rest.isRoot { return .value(node.isEmpty ? nil : IndexValue(node.child(at: target))) }
        guard !node.isEmpty else { return .unknown }
        // The write replaces the value path or something above it: the node says what is there now.
        if let below = rest.relative(target) { return .value(IndexValue(node.child(at: below))) }
        // Something now exists below the value path: it holds an object.
        if target.isAncestor(ofOrEqualTo: rest) { return .value(.object) }
        return .unchangedOrNull
    }

    /// Keeps every built index in step with a write of `node` at `path` (after the tree rows changed).
    func maintainIndexes(after path: Path, node: Node) throws {
        var cleared: [(ix: Int64, start: [UInt8])] = []
        var inserted: [IndexEntry] = []
        var replaced: [IndexEntry] = []
        var ensured: [IndexEntry] = []
        for (id, spec) in try builtSpecs() where spec.matchesPrefix(of: path.keys[...]) {
            let depth = spec.pattern.count
            if path.count <= depth {
                cleared.append((id, PathEncoding.encode(path)))
                collectEntries(id: id, spec: spec, at: path, node: node, into: &inserted)
                continue
            }
            let location = PathEncoding.encode(Path(Array(path.keys.prefix(depth))))
            var entry = IndexEntry(ix: id, parent: location, key: PathEncoding.encodeKey(path.keys[depth]), value: nil)
            switch Self.effect(of: node, at: Path(Array(path.keys.dropFirst(depth + 1))), valuePath: spec.childPath) {
            case .value(let value):
                entry.value = value.map(IndexValueEncoding.encode)
                replaced.append(entry)
            case .unchangedOrNull:
                entry.value = IndexValueEncoding.encode(.null)
                ensured.append(entry)
            case .unknown:
                let child = location + entry.key
                let valuePath = spec.childPath.map { child + PathEncoding.encode($0) } ?? child
                entry.value = try probe(child: child, valuePath: valuePath).map(IndexValueEncoding.encode)
                replaced.append(entry)
            }
        }
        try clear(cleared)
        try insertEntries(inserted)
        try replaceEntries(replaced)
        try ensureEntries(ensured)
    }

    /// The rows of the children of every location `spec` covers in `node`, written at `path`.
    private func collectEntries(id: Int64, spec: IndexSpec, at path: Path, node: Node, into entries: inout [IndexEntry]) {
        guard case .children(let children) = node.content else { return }
        if path.count == spec.pattern.count {
            let parent = PathEncoding.encode(path)
            for (key, child) in children {
                entries.append(
                    IndexEntry(ix: id, parent: parent, key: PathEncoding.encodeKey(key), value: IndexValueEncoding.encode(spec.value(of: child))))
            }
            return
        }
        let segment = spec.pattern[path.count]
        if segment.hasPrefix("$") {
            for (key, child) in children { collectEntries(id: id, spec: spec, at: path.child(key), node: child, into: &entries) }
        } else {
            let key = Key(segment)
            collectEntries(id: id, spec: spec, at: path.child(key), node: node.child(key), into: &entries)
        }
    }

    /// Whether the child at `child` exists (nil if not) and its value at `valuePath`: null, the leaf, or
    /// an object. One statement, at most three rows.
    private func probe(child: [UInt8], valuePath: [UInt8]) throws -> IndexValue? {
        let rows = try session.query(
            """
            (SELECT 0 AS w, p, v FROM hearth_tree WHERE ns = \(namespace) AND p >= \(Self.buffer(child))
                AND p < \(Self.buffer(PathEncoding.subtreeEnd(child))) ORDER BY p LIMIT 1)
            UNION ALL
            (SELECT 1 AS w, p, v FROM hearth_tree WHERE ns = \(namespace) AND p >= \(Self.buffer(valuePath))
                AND p < \(Self.buffer(PathEncoding.subtreeEnd(valuePath))) ORDER BY p LIMIT 2)
            """)
        var exists = false
        var found: [(p: ByteBuffer, v: ByteBuffer?)] = []
        for row in rows {
            let (w, p, v) = try row.decode((Int32, ByteBuffer, ByteBuffer?).self)
            if w == 0 { exists = true } else { found.append((p, v)) }
        }
        guard exists else { return nil }
        guard let first = found.first else { return .null }
        let here = first.p.readableBytes == valuePath.count
        if here, let leaf = try Self.leaf(first.v) { return .leaf(leaf) }
        return found.count > 1 || !here ? .object : .null
    }

    /// Removes the rows of every location at or below each `start`, per index.
    private func clear(_ cleared: [(ix: Int64, start: [UInt8])]) throws {
        guard !cleared.isEmpty else { return }
        try session.execute(
            """
            DELETE FROM hearth_index_rows r
            USING unnest(\(cleared.map(\.ix))::bigint[], \(cleared.map { Self.buffer($0.start) })::bytea[],
                \(cleared.map { Self.buffer(PathEncoding.subtreeEnd($0.start)) })::bytea[]) AS c(ix, lo, hi)
            WHERE r.ns = \(namespace) AND r.ix = c.ix AND r.parent >= c.lo AND r.parent < c.hi
            """)
    }

    /// Sets each child's row to its entry's value (none when nil), in one statement: a row with another
    /// value goes, and the new one is added unless it is already there.
    private func replaceEntries(_ entries: [IndexEntry]) throws {
        guard !entries.isEmpty else { return }
        // An absent value travels as an empty byte string (no encoded value is empty).
        try session.execute(
            """
            WITH e AS (
                SELECT * FROM unnest(\(entries.map(\.ix))::bigint[], \(entries.map { Self.buffer($0.parent) })::bytea[],
                    \(entries.map { Self.buffer($0.value ?? []) })::bytea[], \(entries.map { Self.buffer($0.key) })::bytea[]) AS e(ix, parent, v, k)),
            gone AS (
                DELETE FROM hearth_index_rows r USING e
                WHERE r.ns = \(namespace) AND r.ix = e.ix AND r.parent = e.parent AND r.k = e.k AND r.v <> e.v)
            INSERT INTO hearth_index_rows(ns, ix, parent, v, k)
            SELECT \(namespace), ix, parent, v, k FROM e WHERE v <> ''::bytea
            ON CONFLICT DO NOTHING
            """)
    }

    /// Adds each entry's row unless its child has one already.
    private func ensureEntries(_ entries: [IndexEntry]) throws {
        guard !entries.isEmpty else { return }
        try session.execute(
            """
            INSERT INTO hearth_index_rows(ns, ix, parent, v, k)
            SELECT \(namespace), e.ix, e.parent, e.v, e.k
            FROM unnest(\(entries.map(\.ix))::bigint[], \(entries.map { Self.buffer($0.parent) })::bytea[],
                \(entries.map { Self.buffer($0.value ?? []) })::bytea[], \(entries.map { Self.buffer($0.key) })::bytea[]) AS e(ix, parent, v, k)
            WHERE NOT EXISTS (
                SELECT 1 FROM hearth_index_rows r WHERE r.ns = \(namespace) AND r.ix = e.ix AND r.parent = e.parent AND r.k = e.k)
            """)
    }
}
