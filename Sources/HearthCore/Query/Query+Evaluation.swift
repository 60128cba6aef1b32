extension Query {
    /// The index value of `child` (named `key`) under this query's ordering (`.key` orders by key only).
    public func indexValue(of child: Node, key: Key) -> IndexValue {
        switch order {
        case .key: return .leaf(.string(key.string))
        case .value: return IndexValue(child)
        case .priority: return IndexValue(child.priority)
        case .child(let p): return IndexValue(child.child(at: p))
        }
    }

    /// Compares two children in query order (index value, then key).
    public func compare(_ a: (Key, IndexValue), _ b: (Key, IndexValue)) -> Int {
        if order != .key {
            let c = IndexValue.compare(a.1, b.1)
            if c != 0 { return c }
        }
        return Key.compare(a.0, b.0)
    }

    /// Whether a child at (key, index value) lies inside the start and end bounds.
    public func contains(key: Key, value: IndexValue) -> Bool {
        if let s = start, !satisfiesStart(s, key: key, value: value) { return false }
        if let e = end, !satisfiesEnd(e, key: key, value: value) { return false }
        return true
    }

    private func position(_ bound: Bound, key: Key, value: IndexValue) -> Int {
        // Negative: the child is before the bound's value; positive: after; 0: same value.
        if order == .key {
            let boundKey = Key(bound.value.map(Query.keyText) ?? "")
            return Key.compare(key, boundKey)
        }
        return IndexValue.compare(value, IndexValue(bound.value))
    }

    static func keyText(_ leaf: Leaf) -> String {
        switch leaf {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return String(b)
        }
    }

    private func satisfiesStart(_ b: Bound, key: Key, value: IndexValue) -> Bool {
        let p = position(b, key: key, value: value)
        if p != 0 { return p > 0 }
        if order == .key { return !b.strict }
        guard let name = b.key else { return !b.strict }
        let k = Key.compare(key, name)
        return b.strict ? k > 0 : k >= 0
    }

    private func satisfiesEnd(_ b: Bound, key: Key, value: IndexValue) -> Bool {
        let p = position(b, key: key, value: value)
        if p != 0 { return p < 0 }
        if order == .key { return !b.strict }
        guard let name = b.key else { return !b.strict }
        let k = Key.compare(key, name)
        return b.strict ? k < 0 : k <= 0
    }

    /// Applies the query to the children of `node`, returning the kept children in query order.
    public func select(from node: Node) -> [(Key, Node)] {
        guard case .children(let c) = node.content else { return [] }
        var rows: [(Key, Node, IndexValue)] = []
        rows.reserveCapacity(c.count)
        for (k, n) in c {
            let v = indexValue(of: n, key: k)
            if contains(key: k, value: v) { rows.append((k, n, v)) }
        }
        if order != .key {
            rows.sort { compare(($0.0, $0.2), ($1.0, $1.2)) < 0 }
        }
        switch limit {
        case .first(let n)?: rows = Array(rows.prefix(n))
        case .last(let n)?: rows = Array(rows.suffix(n))
        case nil: break
        }
        return rows.map { ($0.0, $0.1) }
    }

    /// The query's result as a node (leaf handling per the REST rules: a leaf survives only an unfiltered query).
    public func apply(to node: Node) -> Node {
        switch node.content {
        case .empty: return .empty
        case .leaf: return isUnfiltered ? node : .empty
        case .children:
            // `select` returns the query's order, not key order.
            return Node(.children(Children(unsorted: select(from: node))))
        }
    }
}
