import Foundation
import GRDB
import HearthCore
import HearthStore

/// A `StoreTransaction` over one GRDB connection, valid only inside the pool's read/write closure.
final class SQLiteTransaction: StoreTransaction {
    let db: GRDB.Database
    /// Index declarations, loaded once per transaction.
    private var loadedSpecs: [(id: Int64, spec: IndexSpec)]?
    /// Whether ``logChanges(_:)`` records the changes in `write_log` (see ``WriteLog``).
    var writeLog = false

    init(_ db: GRDB.Database) {
        self.db = db
    }

    var specs: [(id: Int64, spec: IndexSpec)] {
        get throws {
            if let loadedSpecs { return loadedSpecs }
            var out: [(Int64, IndexSpec)] = []
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT id, pattern, spec FROM idx_specs")) {
                let pattern: String = row[1]
                out.append((row[0], IndexSpec(pattern: pattern.split(separator: "/").map(String.init), index: row[2])))
            }
            loadedSpecs = out
            return out
        }
    }

    func blob(_ bytes: [UInt8]) -> Data { Data(bytes) }

    static func leaf(from data: Data?) throws -> Leaf? {
        guard let data else { return nil }
        return try data.withUnsafeBytes { try leaf(from: $0) }
    }

    static func leaf(from bytes: UnsafeRawBufferPointer?) throws -> Leaf? {
        guard let bytes else { return nil }
        return Leaf(json: try JSONValue.parse(bytes))
    }

    static func bytes(_ leaf: Leaf) -> Data {
        Data(jsonBytes(leaf))
    }

    static func jsonBytes(_ leaf: Leaf) -> [UInt8] {
        var w = JSONWriter()
        w.write(leaf)
        return w.bytes
    }

    /// One of the connection's cached statements, stepped through SQLite's C API (see `RawStatement`).
    func raw(_ sql: String) throws -> RawStatement {
        RawStatement(try db.cachedStatement(sql: sql), in: db)
    }

    func read(_ path: Path) throws -> Node {
        let start = PathEncoding.encode(path)
        var builder = NodeBuilder()
        let rows = try raw("SELECT p, v, pr FROM tree WHERE p >= ? AND p < ? ORDER BY p")
        try rows.forEachRow([start, PathEncoding.subtreeEnd(start)]) { row in
            let keys = row.blob(0).map { PathEncoding.decode($0, from: start.count) } ?? []
            builder.add(keys, leaf: try Self.leaf(from: row.blob(1)), priority: try Self.leaf(from: row.blob(2)))
        }
        return builder.finish()
    }

    func read(_ path: Path, rowLimit: Int) throws -> Node? {
        let start = PathEncoding.encode(path)
        var builder = NodeBuilder()
        var count = 0
        let rows = try raw("SELECT p, v, pr FROM tree WHERE p >= ? AND p < ? ORDER BY p LIMIT \(rowLimit + 1)")
        try rows.forEachRow([start, PathEncoding.subtreeEnd(start)]) { row in
            count += 1
            guard count <= rowLimit else { return }
            let keys = row.blob(0).map { PathEncoding.decode($0, from: start.count) } ?? []
            builder.add(keys, leaf: try Self.leaf(from: row.blob(1)), priority: try Self.leaf(from: row.blob(2)))
        }
        return count > rowLimit ? nil : builder.finish()
    }

    /// At most two rows: the location's own row (leaf or priority) and whether anything lies below.
    func summary(_ path: Path) throws -> NodeSummary {
        let start = PathEncoding.encode(path)
        let statement = try db.cachedStatement(sql: "SELECT p, v, pr FROM tree WHERE p >= ? AND p < ? ORDER BY p LIMIT 2")
        let rows = try Row.fetchAll(statement, arguments: [blob(start), blob(PathEncoding.subtreeEnd(start))])
        guard let first = rows.first else { return .absent }
        let firstPath: Data = first[0]
        guard firstPath.elementsEqual(start) else { return .object(priority: nil) }
        let priority = try Self.leaf(from: first[2])
        if let leaf = try Self.leaf(from: first[1]) { return .leaf(leaf, priority: priority) }
        return rows.count > 1 ? .object(priority: priority) : .absent
    }

    func resetSpecs() { loadedSpecs = nil }

    func query(_ path: Path, _ query: Query) throws -> Node {
        if let node = try keyOrderedQuery(path, query) {
            return node.isEmpty ? query.apply(to: try leafOnly(path)) : node
        }
        if let node = try indexedQuery(path, query) {
            // A leaf at the location answers like the scan would.
            return node.isEmpty ? query.apply(to: try leafOnly(path)) : node
        }
        return query.apply(to: try read(path))
    }

    private func leafOnly(_ path: Path) throws -> Node {
        guard case .leaf(let l) = try indexValue(at: path) else { return .empty }
        return .leaf(l)
    }

    func sequence() throws -> UInt64 {
        let value = try Int64.fetchOne(db, sql: "SELECT v FROM meta WHERE k = 'sequence'") ?? 0
        return UInt64(value)
    }

    func setting(_ name: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT v FROM meta WHERE k = ?", arguments: ["setting:" + name])
    }

    func setSequence(_ sequence: UInt64) throws {
        try db.cachedStatement(sql: "INSERT INTO meta(k, v) VALUES('sequence', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v")
            .execute(arguments: [Int64(sequence)])
    }

    func setSetting(_ name: String, _ value: String) throws {
        try db.execute(
            sql: "INSERT INTO meta(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
            arguments: ["setting:" + name, value])
    }

    func set(_ path: Path, _ node: Node) throws {
        let encoded = PathEncoding.encode(path)
        try raw("DELETE FROM tree WHERE p >= ? AND p < ?").execute([encoded, PathEncoding.subtreeEnd(encoded)])
        var ancestors: [[UInt8]] = []
        var prefix: [UInt8] = []
        ancestors.append(prefix)
        for key in path.keys.dropLast() {
            PathEncoding.append(key, to: &prefix)
            ancestors.append(prefix)
        }
        if path.isRoot { ancestors = [] }
        if node.isEmpty {
            try removeEmptyAncestors(ancestors)
            try maintainIndexes(after: path, node: node)
            return
        }
        // A leaf above the write turns into an object (keeping its priority). One lookup finds it;
        // almost always there is none.
        if !ancestors.isEmpty {
            let marks = Array(repeating: "?", count: ancestors.count).joined(separator: ",")
            var leaves: [[UInt8]] = []
            try raw("SELECT p FROM tree WHERE p IN (\(marks)) AND v IS NOT NULL").forEachRow(ancestors) { row in
                leaves.append(row.blob(0).map { Array($0) } ?? [])
            }
            for leaf in leaves {
                try raw("DELETE FROM tree WHERE p = ? AND pr IS NULL").execute([leaf])
                try raw("UPDATE tree SET v = NULL WHERE p = ?").execute([leaf])
            }
        }
        let insert = try raw("INSERT INTO tree(p, v, pr) VALUES(?, ?, ?)")
        var key = encoded
        try insertRows(node, key: &key, statement: insert)
        try maintainIndexes(after: path, node: node)
    }

    private func insertRows(_ node: Node, key: inout [UInt8], statement: RawStatement) throws {
        let priority = node.priority.map(Self.jsonBytes)
        switch node.content {
        case .empty: return
        case .leaf(let l):
            try statement.execute([key, Self.jsonBytes(l), priority])
        case .children(let c):
            if let priority { try statement.execute([key, nil, priority]) }
            let base = key.count
            for (k, child) in c {
                PathEncoding.append(k, to: &key)
                try insertRows(child, key: &key, statement: statement)
                key.removeSubrange(base...)
            }
        }
    }

    /// After a delete, priority-only rows of ancestors left with no descendants are removed.
    private func removeEmptyAncestors(_ ancestors: [[UInt8]]) throws {
        let find = try db.cachedStatement(sql: "SELECT 1 FROM tree WHERE p = ? AND v IS NULL")
        let hasChild = try db.cachedStatement(sql: "SELECT 1 FROM tree WHERE p > ? AND p < ? LIMIT 1")
        let delete = try db.cachedStatement(sql: "DELETE FROM tree WHERE p = ?")
        for a in ancestors.reversed() {
            guard try Int.fetchOne(find, arguments: [blob(a)]) != nil else { continue }
            let end = PathEncoding.subtreeEnd(a)
            if try Int.fetchOne(hasChild, arguments: [blob(a), blob(end)]) == nil {
                try delete.execute(arguments: [blob(a)])
            }
        }
    }

    func setPriority(_ path: Path, _ priority: Leaf?) throws {
        let encoded = PathEncoding.encode(path)
        let exists = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM tree WHERE p >= ? AND p < ? LIMIT 1"),
            arguments: [blob(encoded), blob(PathEncoding.subtreeEnd(encoded))])
        guard exists != nil else { return }
        if let priority {
            try db.cachedStatement(sql: "INSERT INTO tree(p, v, pr) VALUES(?, NULL, ?) ON CONFLICT(p) DO UPDATE SET pr = excluded.pr")
                .execute(arguments: [blob(encoded), Self.bytes(priority)])
        } else {
            try db.cachedStatement(sql: "UPDATE tree SET pr = NULL WHERE p = ?").execute(arguments: [blob(encoded)])
            try db.cachedStatement(sql: "DELETE FROM tree WHERE p = ? AND v IS NULL AND pr IS NULL").execute(arguments: [blob(encoded)])
        }
    }
}
