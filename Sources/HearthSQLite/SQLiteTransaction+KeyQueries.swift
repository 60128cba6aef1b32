import Foundation
import GRDB
import HearthCore
import HearthStore

/// `orderBy="$key"` with a limit: a skip-scan over the primary key that visits only the children it
/// returns (one seek per child), instead of reading the whole location.
extension SQLiteTransaction {
    func keyOrderedQuery(_ path: Path, _ query: Query) throws -> Node? {
        guard query.order == .key, let limit = query.limit else { return nil }
        let parent = PathEncoding.encode(path)
        let parentEnd = PathEncoding.subtreeEnd(parent)
        func encoded(_ bound: Query.Bound?) -> [UInt8]? {
            guard case .string(let s)? = bound?.value else { return nil }
            return parent + PathEncoding.encodeKey(Key(s))
        }
        var children = Children()
        switch limit {
        case .first(let n):
            var lower = encoded(query.start).map { query.start!.strict ? PathEncoding.subtreeEnd($0) : $0 } ?? parent + [0x01]
            let next = try db.cachedStatement(sql: "SELECT p FROM tree WHERE p >= ? AND p < ? ORDER BY p LIMIT 1")
            while children.count < n, let p = try Data.fetchOne(next, arguments: [blob(lower), blob(parentEnd)]) {
                guard let key = PathEncoding.decode(p, from: parent.count).first else { break }
                if !query.contains(key: key, value: .leaf(.string(key.string))) {
                    // Past the end bound (keys only grow from here).
                    break
                }
                let child = try read(path.child(key))
                children.appendSorted(key, child)
                lower = PathEncoding.subtreeEnd(parent + PathEncoding.encodeKey(key))
            }
        case .last(let n):
            var upper = encoded(query.end).map { query.end!.strict ? $0 : PathEncoding.subtreeEnd($0) } ?? parentEnd
            let previous = try db.cachedStatement(sql: "SELECT p FROM tree WHERE p > ? AND p < ? ORDER BY p DESC LIMIT 1")
            var found: [(Key, Node)] = []
            while found.count < n, let p = try Data.fetchOne(previous, arguments: [blob(parent), blob(upper)]) {
                guard let key = PathEncoding.decode(p, from: parent.count).first else { break }
                if !query.contains(key: key, value: .leaf(.string(key.string))) { break }
                found.append((key, try read(path.child(key))))
                upper = parent + PathEncoding.encodeKey(key)
            }
            for (key, node) in found.reversed() { children.appendSorted(key, node) }
        }
        return Node(.children(children))
    }
}

extension SQLiteTransaction {
    /// Child keys by skip-scan: one seek per child, never reading a child's subtree.
    func shallow(_ path: Path, _ query: Query?) throws -> Node {
        if case .leaf(let l) = try indexValue(at: path) { return query?.isUnfiltered == false ? .empty : .leaf(l) }
        let parent = PathEncoding.encode(path)
        let parentEnd = PathEncoding.subtreeEnd(parent)
        var lower = parent + [0x01]
        if case .string(let s)? = query?.start?.value {
            let k = parent + PathEncoding.encodeKey(Key(s))
            lower = query!.start!.strict ? PathEncoding.subtreeEnd(k) : k
        }
        var limit = Int.max
        if case .first(let n)? = query?.limit { limit = n }
        let next = try db.cachedStatement(sql: "SELECT p FROM tree WHERE p >= ? AND p < ? ORDER BY p LIMIT 1")
        var children = Children()
        while children.count < limit, let p = try Data.fetchOne(next, arguments: [blob(lower), blob(parentEnd)]) {
            guard let key = PathEncoding.decode(p, from: parent.count).first else { break }
            if let query, !query.contains(key: key, value: .leaf(.string(key.string))) { break }
            children.appendSorted(key, .leaf(.bool(true)))
            lower = PathEncoding.subtreeEnd(parent + PathEncoding.encodeKey(key))
        }
        return Node(.children(children))
    }
}
