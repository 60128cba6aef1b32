import HearthCore
import HearthStore
import PostgresNIO

extension PostgresTransaction {
    /// Child keys by skip-scan, as SQLite's store lists them: one primary-key seek per child, never reading a
    /// child's subtree (the default reads the whole location first: every row of a node of 10⁶ children).
    func shallow(_ path: Path, _ query: Query?) throws -> Node {
        if case .leaf(let leaf, _) = try summary(path) { return query?.isUnfiltered == false ? .empty : .leaf(leaf) }
        let parent = PathEncoding.encode(path)
        let parentEnd = Self.buffer(PathEncoding.subtreeEnd(parent))
        var lower = parent + [0x01]
        if let start = query?.start, case .string(let s) = start.value {
            let k = parent + PathEncoding.encodeKey(Key(s))
            lower = start.strict ? PathEncoding.subtreeEnd(k) : k
        }
        var limit = Int.max
        if case .first(let n)? = query?.limit { limit = n }
        var children = Children()
        while children.count < limit {
            let rows = try session.query(
                "SELECT p FROM hearth_tree WHERE ns = \(namespace) AND p >= \(Self.buffer(lower)) AND p < \(parentEnd) ORDER BY p LIMIT 1")
            guard let row = rows.first else { break }
            let p = try row.decode(ByteBuffer.self)
            guard let key = PathEncoding.decode(p.readableBytesView, from: parent.count).first else { break }
            if let query, !query.contains(key: key, value: .leaf(.string(key.string))) { break }
            children.appendSorted(key, .leaf(.bool(true)))
            lower = PathEncoding.subtreeEnd(parent + PathEncoding.encodeKey(key))
        }
        return Node(.children(children))
    }
}
