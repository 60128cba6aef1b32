import Foundation
import GRDB
import HearthCore
import HearthStore

/// Secondary indexes for `.indexOn`: rows `(ix, parent, encoded value, encoded key)`, one per child of
/// every indexed location, so ordered and limited queries read only the children they return.
extension SQLiteTransaction {
    func setIndexes(_ wanted: [IndexSpec]) throws {
        let existing = try specs
        for (id, spec) in existing where !wanted.contains(spec) {
            try db.execute(sql: "DELETE FROM idx WHERE ix = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM idx_specs WHERE id = ?", arguments: [id])
        }
        for spec in wanted where !existing.contains(where: { $0.spec == spec }) {
            try db.execute(
                sql: "INSERT INTO idx_specs(pattern, spec) VALUES(?, ?)",
                arguments: [spec.pattern.joined(separator: "/"), spec.index])
            let id = db.lastInsertedRowID
            // Build: walk the subtree under the pattern's literal prefix.
            let literal = Path(spec.pattern.prefix { !$0.hasPrefix("$") }.map(Key.init))
            try insertEntries(id: id, spec: spec, at: literal, node: read(literal))
        }
        resetSpecs()
    }

    /// Keeps every index in step with a write of `node` at `path`.
    func maintainIndexes(after path: Path, node: Node) throws {
        for (id, spec) in try specs {
            let depth = spec.pattern.count
            guard spec.matchesPrefix(of: path.keys[...]) else { continue }
            if path.count <= depth {
                let start = PathEncoding.encode(path)
                try db.cachedStatement(sql: "DELETE FROM idx WHERE ix = ? AND parent >= ? AND parent < ?")
                    .execute(arguments: [id, blob(start), blob(PathEncoding.subtreeEnd(start))])
                try insertEntries(id: id, spec: spec, at: path, node: node)
            } else {
                let location = Path(Array(path.keys.prefix(depth)))
                let child = path.keys[depth]
                let rest = Path(Array(path.keys.dropFirst(depth + 1)))
                // A write beside the indexed child path can only change whether the child exists.
                let beside = spec.childPath.map { !rest.isAncestor(ofOrEqualTo: $0) && !$0.isAncestor(ofOrEqualTo: rest) } ?? false
                try refreshEntry(id: id, spec: spec, location: location, child: child, onlyExistence: beside)
            }
        }
    }

    private func insertEntries(id: Int64, spec: IndexSpec, at path: Path, node: Node) throws {
        guard !node.isEmpty else { return }
        if path.count == spec.pattern.count {
            let parent = blob(PathEncoding.encode(path))
            let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO idx(ix, parent, v, k) VALUES(?, ?, ?, ?)")
            for (key, child) in node.children {
                var k: [UInt8] = []
                PathEncoding.append(key, to: &k)
                try insert.execute(arguments: [id, parent, blob(IndexValueEncoding.encode(spec.value(of: child))), blob(k)])
            }
            return
        }
        let segment = spec.pattern[path.count]
        if segment.hasPrefix("$") {
            for (key, child) in node.children { try insertEntries(id: id, spec: spec, at: path.child(key), node: child) }
        } else {
            let key = Key(segment)
            try insertEntries(id: id, spec: spec, at: path.child(key), node: node.child(key))
        }
    }

    private func refreshEntry(id: Int64, spec: IndexSpec, location: Path, child: Key, onlyExistence: Bool) throws {
        let parent = blob(PathEncoding.encode(location))
        var k: [UInt8] = []
        PathEncoding.append(child, to: &k)
        let childPath = location.child(child)
        let exists = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM tree WHERE p >= ? AND p < ? LIMIT 1"),
            arguments: [blob(PathEncoding.encode(childPath)), blob(PathEncoding.subtreeEnd(PathEncoding.encode(childPath)))]) != nil
        if !exists {
            try db.cachedStatement(sql: "DELETE FROM idx WHERE ix = ? AND parent = ? AND k = ?").execute(arguments: [id, parent, blob(k)])
            return
        }
        if onlyExistence {
            let present = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM idx WHERE ix = ? AND parent = ? AND k = ?"), arguments: [id, parent, blob(k)]) != nil
            if present { return }
        }
        let valuePath = spec.childPath.map { childPath.appending($0) } ?? childPath
        let value = try indexValue(at: valuePath)
        try db.cachedStatement(sql: "DELETE FROM idx WHERE ix = ? AND parent = ? AND k = ?").execute(arguments: [id, parent, blob(k)])
        try db.cachedStatement(sql: "INSERT INTO idx(ix, parent, v, k) VALUES(?, ?, ?, ?)")
            .execute(arguments: [id, parent, blob(IndexValueEncoding.encode(value)), blob(k)])
    }

    /// Null, the leaf, or "object" at `path`, reading at most two rows.
    func indexValue(at path: Path) throws -> IndexValue {
        let start = PathEncoding.encode(path)
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT p, v FROM tree WHERE p >= ? AND p < ? ORDER BY p LIMIT 2"),
            arguments: [blob(start), blob(PathEncoding.subtreeEnd(start))])
        guard let first = rows.first else { return .null }
        let p: Data = first[0]
        if p.count == start.count, let leaf = try Self.leaf(from: first[1]) { return .leaf(leaf) }
        return rows.count > 1 || p.count > start.count ? .object : .null
    }

    /// Answers an ordered query from an index when one covers it; nil otherwise.
    func indexedQuery(_ path: Path, _ query: Query) throws -> Node? {
        guard let name = IndexSpec.name(for: query.order),
            let (id, _) = try specs.first(where: { $0.spec.index == name && $0.spec.matches(path) })
        else { return nil }
        var sql = "SELECT k FROM idx WHERE ix = ? AND parent = ?"
        var arguments: StatementArguments = [id, blob(PathEncoding.encode(path))]
        func bound(_ b: Query.Bound, lower: Bool) {
            let v = blob(IndexValueEncoding.encode(IndexValue(b.value)))
            if let name = b.key {
                var k: [UInt8] = []
                PathEncoding.append(name, to: &k)
                let op = lower ? (b.strict ? ">" : ">=") : (b.strict ? "<" : "<=")
                sql += " AND (v, k) \(op) (?, ?)"
                arguments += [v, blob(k)]
            } else {
                let op = lower ? (b.strict ? ">" : ">=") : (b.strict ? "<" : "<=")
                sql += " AND v \(op) ?"
                arguments += [v]
            }
        }
        if let s = query.start { bound(s, lower: true) }
        if let e = query.end { bound(e, lower: false) }
        switch query.limit {
        case .first(let n)?: sql += " ORDER BY v, k LIMIT \(n)"
        case .last(let n)?: sql += " ORDER BY v DESC, k DESC LIMIT \(n)"
        case nil: sql += " ORDER BY v, k"
        }
        var keys: [Key] = []
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try cursor.next() {
            let k: Data = row[0]
            keys.append(contentsOf: PathEncoding.decode(k))
        }
        // The keys come in index order, not key order: sorted once.
        return Node(.children(Children(unsorted: try keys.map { ($0, try read(path.child($0))) })))
    }
}
