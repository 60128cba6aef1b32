import HearthCore
import HearthStore
import NIOCore
import PostgresNIO

/// Secondary indexes for `.indexOn`, laid out as SQLite's: a row `(ns, ix, parent, v, k)` for each child of
/// every indexed location, `v` the child's value under the index (``IndexValueEncoding``) and `k` its key
/// (``PathEncoding``). The primary key orders a location's children as a query on the index does (value,
/// then key), so an ordered, limited query reads only the children it returns.
///
/// Declarations and rows change only under the namespace's lock (its counter row, as writers take it):
/// a spec is built from the tree, and every write of the tree keeps its rows, one transaction at a time
/// across all nodes. A transaction that writes loads the declarations after taking the lock, so it never
/// misses a spec another node built just before.
extension PostgresTransaction {
    /// One index row to write: `value` nil removes the child's row.
    struct IndexEntry {
        var ix: Int64
        var parent: [UInt8]
        var key: [UInt8]
        var value: [UInt8]?
    }

    /// A declaration as stored: `built` is false for one declared before the rows existed (schema 4).
    struct DeclaredSpec {
        var id: Int64
        var spec: IndexSpec
        var built: Bool
    }

    /// The indexes whose rows are complete, loaded once per transaction.
    func builtSpecs() throws -> [(id: Int64, spec: IndexSpec)] {
        if let loadedSpecs { return loadedSpecs }
        if writable { _ = try lockSequence() }
        let specs = try declaredSpecs().filter(\.built).map { (id: $0.id, spec: $0.spec) }
        loadedSpecs = specs
        return specs
    }

    func declaredSpecs() throws -> [DeclaredSpec] {
        try session.query("SELECT id, pattern, spec, built FROM hearth_index_specs WHERE ns = \(namespace) ORDER BY id").map { row in
            let (id, pattern, index, built) = try row.decode((Int64, String, String, Bool).self)
            return DeclaredSpec(id: id, spec: IndexSpec(pattern: pattern.split(separator: "/").map(String.init), index: index), built: built)
        }
    }

    /// Keeps the indexes of `specs` and drops the others' rows; a new spec (or one stored before its rows
    /// existed) is built from the current tree in this transaction.
    func setIndexes(_ specs: [IndexSpec]) throws {
        _ = try lockSequence()
        let declared = try declaredSpecs()
        for old in declared where !specs.contains(old.spec) {
            try session.execute("DELETE FROM hearth_index_rows WHERE ns = \(namespace) AND ix = \(old.id)")
            try session.execute("DELETE FROM hearth_index_specs WHERE ns = \(namespace) AND id = \(old.id)")
        }
        var next = (declared.map(\.id).max() ?? -1) + 1
        var seen: Set<IndexSpec> = []
        for spec in specs where seen.insert(spec).inserted {
            if let old = declared.first(where: { $0.spec == spec }) {
                if !old.built { try build(old.id, spec) }
                continue
            }
            let pattern = spec.pattern.joined(separator: "/")
            try session.execute(
                "INSERT INTO hearth_index_specs(ns, id, pattern, spec) VALUES (\(namespace), \(next), \(pattern), \(spec.index))")
            try build(next, spec)
            next += 1
        }
        loadedSpecs = nil
    }

    /// Builds the declared indexes that have no rows yet (declared before schema version 4); how many.
    func buildDeclaredIndexes() throws -> Int {
        _ = try lockSequence()
        let pending = try declaredSpecs().filter { !$0.built }
        for old in pending { try build(old.id, old.spec) }
        loadedSpecs = nil
        return pending.count
    }

    /// Rows of the tree read per statement while building, and index rows written per statement.
    static let buildPage = 10_000

    /// Writes the rows of index `id` from the tree, reading it a page at a time in path order: a child's
    /// rows are contiguous, so its value is known when the next child begins. Only the current child is
    /// held, never the whole location.
    private func build(_ id: Int64, _ spec: IndexSpec) throws {
        try session.execute("DELETE FROM hearth_index_rows WHERE ns = \(namespace) AND ix = \(id)")
        let literal = Path(spec.pattern.prefix { !$0.hasPrefix("$") }.map(Key.init))
        let start = PathEncoding.encode(literal)
        let end = Self.buffer(PathEncoding.subtreeEnd(start))
        let depth = spec.pattern.count
        let target = spec.childPath?.keys ?? []
        var pending: [IndexEntry] = []
        var current: (child: ArraySlice<Key>, value: IndexValue)?
        func finishChild() {
            guard let current, let key = current.child.last else { return }
            pending.append(
                IndexEntry(
                    ix: id, parent: PathEncoding.encode(Path(Array(current.child.dropLast()))), key: PathEncoding.encodeKey(key),
                    value: IndexValueEncoding.encode(current.value)))
        }
        var after: ByteBuffer?
        while true {
            let rows: [PostgresRow]
            if let after {
                rows = try session.query(
                    "SELECT p, v FROM hearth_tree WHERE ns = \(namespace) AND p > \(after) AND p < \(end) ORDER BY p LIMIT \(Self.buildPage)")
            } else {
                rows = try session.query(
                    "SELECT p, v FROM hearth_tree WHERE ns = \(namespace) AND p >= \(Self.buffer(start)) AND p < \(end) ORDER BY p LIMIT \(Self.buildPage)")
            }
            for row in rows {
                let (p, v) = try row.decode((ByteBuffer, ByteBuffer?).self)
                after = p
                let keys = PathEncoding.decode(p.readableBytesView)
                guard keys.count > depth, spec.matches(Path(Array(keys.prefix(depth)))) else { continue }
                let child = keys.prefix(depth + 1)
                if current?.child != child {
                    finishChild()
                    current = (child, .null)
                }
                // The row's place relative to the value path: at it (a leaf), below it (an object), or beside.
                let rest = keys.dropFirst(depth + 1)
                if rest.elementsEqual(target) {
                    if let leaf = try Self.leaf(v) { current?.value = .leaf(leaf) }
                } else if rest.count > target.count, rest.starts(with: target) {
                    current?.value = .object
                }
            }
            if pending.count >= Self.buildPage {
                try insertEntries(pending)
                pending.removeAll(keepingCapacity: true)
            }
            if rows.count < Self.buildPage { break }
        }
        finishChild()
        try insertEntries(pending)
        try session.execute("UPDATE hearth_index_specs SET built = true WHERE ns = \(namespace) AND id = \(id)")
    }

    /// Adds rows for children that have none (after their location's rows were cleared, or while building).
    func insertEntries(_ entries: [IndexEntry]) throws {
        guard !entries.isEmpty else { return }
        try session.execute(
            """
            INSERT INTO hearth_index_rows(ns, ix, parent, v, k)
            SELECT \(namespace), e.ix, e.parent, e.v, e.k
            FROM unnest(\(entries.map(\.ix))::bigint[], \(entries.map { Self.buffer($0.parent) })::bytea[],
                \(entries.map { Self.buffer($0.value ?? []) })::bytea[], \(entries.map { Self.buffer($0.key) })::bytea[]) AS e(ix, parent, v, k)
            ON CONFLICT DO NOTHING
            """)
    }
}
