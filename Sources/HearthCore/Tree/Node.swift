/// An immutable JSON tree as the Realtime Database sees it: empty, a leaf, or children sorted by key,
/// each optionally carrying a priority.
///
/// Nodes are always normalised: an object never holds an empty child, and an empty node has no priority.
/// ```swift
/// let node = try Node(json: JSONValue.parse(#"{"b":1,"a":{"x":true}}"#))
/// node.child(at: Path("a/x"))   // .leaf(.bool(true))
/// ```
public struct Node: Sendable, Hashable {
    /// What a node holds.
    public enum Content: Sendable, Hashable {
        /// Nothing: the location does not exist (JSON `null`).
        case empty
        /// A primitive value.
        case leaf(Leaf)
        /// At least one non-empty child (``Node/init(_:priority:)`` turns no children into `.empty`).
        case children(Children)
    }

    /// What the node holds; never `.children` with no children.
    public private(set) var content: Content
    /// The node's priority; always nil on an empty node.
    public private(set) var priority: Leaf?

    /// A normalised node: empty children become `.empty`, and an empty node drops `priority`.
    public init(_ content: Content = .empty, priority: Leaf? = nil) {
        if case .children(let c) = content, c.isEmpty {
            self.content = .empty
        } else {
            self.content = content
        }
        self.priority = self.content == .empty ? nil : priority
    }

    /// The empty node (JSON `null`).
    public static let empty = Node()

    /// A node holding one primitive.
    public static func leaf(_ leaf: Leaf, priority: Leaf? = nil) -> Node { Node(.leaf(leaf), priority: priority) }

    /// True when nothing is stored here.
    public var isEmpty: Bool { content == .empty }

    /// The primitive, if this is a leaf.
    public var leafValue: Leaf? {
        if case .leaf(let l) = content { return l }
        return nil
    }

    /// The children, sorted by key; none for an empty node or a leaf.
    public var children: Children {
        if case .children(let c) = content { return c }
        return Children()
    }

    /// The child named `key`, empty if there is none (a leaf has no children).
    public func child(_ key: Key) -> Node {
        if case .children(let c) = content { return c[key] ?? .empty }
        return .empty
    }

    /// The node at `path` below this one, empty if any step is missing; the root path is this node.
    public func child(at path: Path) -> Node {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { return node }
        }
        return node
    }

    /// A copy with `priority` replaced (ignored on an empty node).
    public func withPriority(_ p: Leaf?) -> Node { Node(content, priority: p) }

    /// A copy with the node at `path` replaced by `value`, normalised (empty parents vanish). Removing something
    /// that is not there changes nothing: a leaf on the way stays (as in Firebase, `a/b = null` keeps `a: 5`).
    public func setting(_ path: Path, to value: Node) -> Node {
        setting(path.keys[...], to: value)
    }

    private func setting(_ keys: ArraySlice<Key>, to value: Node) -> Node {
        guard let first = keys.first else { return value }
        let current = child(first)
        let updatedChild = current.setting(keys.dropFirst(), to: value)
        if updatedChild.isEmpty, current.isEmpty { return self }
        var c = children
        if updatedChild.isEmpty {
            c.remove(first)
        } else {
            c[first] = updatedChild
        }
        return Node(.children(c), priority: priority)
    }

    /// Number of direct children.
    public var childCount: Int { children.count }
}

/// Children of a node, kept sorted by `Key` order.
public struct Children: Sendable, Hashable, Sequence {
    /// The child keys, ascending in ``Key`` order, without duplicates.
    public private(set) var keys: [Key] = []
    /// The child nodes, parallel to ``keys``; none is empty.
    public private(set) var nodes: [Node] = []

    /// No children.
    public init() {}

    /// Number of children.
    public var count: Int { keys.count }
    /// True when there are no children.
    public var isEmpty: Bool { keys.isEmpty }

    func index(of key: Key) -> (found: Bool, index: Int) {
        var lo = 0
        var hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = Key.compare(keys[mid], key)
            if c == 0 { return (true, mid) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (false, lo)
    }

    /// The child named `key` (binary search). Setting nil or an empty node removes it; setting keeps key order.
    public subscript(key: Key) -> Node? {
        get {
            let (found, i) = index(of: key)
            return found ? nodes[i] : nil
        }
        set {
            let (found, i) = index(of: key)
            switch (found, newValue) {
            case (true, let n?) where !n.isEmpty: nodes[i] = n
            case (true, _): keys.remove(at: i); nodes.remove(at: i)
            case (false, let n?) where !n.isEmpty: keys.insert(key, at: i); nodes.insert(n, at: i)
            case (false, _): break
            }
        }
    }

    /// Removes the child named `key`, if any.
    public mutating func remove(_ key: Key) { self[key] = nil }

    /// Children from pairs in any order, sorted once: O(n log n) however the keys arrive (inserting one
    /// by one is O(n²) when they arrive in descending order). A later pair for the same key replaces an
    /// earlier one, an empty node included (`{"a":1,"a":null}` has no `a`), and empty nodes are dropped.
    public init(unsorted pairs: some Sequence<(Key, Node)>) {
        var entries = Array(pairs)
        // Already ascending (arrays, rows read in order, most clients' objects): one pass, no sort.
        var ascending = true
        for i in entries.indices.dropFirst() where Key.compare(entries[i - 1].0, entries[i].0) >= 0 {
            ascending = false
            break
        }
        if !ascending {
            // Stable, so the last of equal keys stays last; `sort` is introsort, not stable, hence the index.
            var order = Array(entries.indices)
            order.sort { a, b in
                let c = Key.compare(entries[a].0, entries[b].0)
                return c != 0 ? c < 0 : a < b
            }
            var deduplicated: [(Key, Node)] = []
            deduplicated.reserveCapacity(entries.count)
            for i in order {
                if let last = deduplicated.last, last.0 == entries[i].0 {
                    deduplicated[deduplicated.count - 1] = entries[i]
                } else {
                    deduplicated.append(entries[i])
                }
            }
            entries = deduplicated
        }
        keys.reserveCapacity(entries.count)
        nodes.reserveCapacity(entries.count)
        for (key, node) in entries where !node.isEmpty {
            keys.append(key)
            nodes.append(node)
        }
    }

    /// These children with `updates` applied in one merge (O(count + updates)): each replaces or adds
    /// its key, an empty node removes it. `updates` must be sorted by key with no key twice.
    public func merging(sorted updates: [(Key, Node)]) -> Children {
        var out = Children()
        out.keys.reserveCapacity(keys.count + updates.count)
        out.nodes.reserveCapacity(keys.count + updates.count)
        var i = 0
        for (key, node) in updates {
            while i < keys.count, Key.compare(keys[i], key) < 0 {
                out.keys.append(keys[i])
                out.nodes.append(nodes[i])
                i += 1
            }
            if i < keys.count, keys[i] == key { i += 1 }
            if !node.isEmpty {
                out.keys.append(key)
                out.nodes.append(node)
            }
        }
        out.keys.append(contentsOf: keys[i...])
        out.nodes.append(contentsOf: nodes[i...])
        return out
    }

    /// Appends a child known to sort after every existing one (used when reading sorted rows). A child out
    /// of order is inserted in its place, which costs O(n): a caller whose order is not guaranteed builds
    /// with ``init(unsorted:)`` instead.
    public mutating func appendSorted(_ key: Key, _ node: Node) {
        guard !node.isEmpty else { return }
        if let last = keys.last, Key.compare(last, key) >= 0 {
            self[key] = node
            return
        }
        keys.append(key)
        nodes.append(node)
    }

    /// Iterates `(key, node)` pairs in key order.
    public func makeIterator() -> Zip2Sequence<[Key], [Node]>.Iterator { zip(keys, nodes).makeIterator() }
}
