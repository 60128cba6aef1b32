/// An immutable JSON tree as the Realtime Database sees it: empty, a leaf, or children sorted by key,
/// each optionally carrying a priority.
///
/// Nodes are always normalised: an object never holds an empty child, and an empty node has no priority.
/// ```swift
/// let node = try Node(json: JSONValue.parse(#"{"b":1,"a":{"x":true}}"#))
/// node.child(at: Path("a/x"))   // .leaf(.bool(true))
/// ```
public struct Node: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case empty
        case leaf(Leaf)
        case children(Children)
    }

    public private(set) var content: Content
    public private(set) var priority: Leaf?

    public init(_ content: Content = .empty, priority: Leaf? = nil) {
        if case .children(let c) = content, c.isEmpty {
            self.content = .empty
        } else {
            self.content = content
        }
        self.priority = self.content == .empty ? nil : priority
    }

    public static let empty = Node()

    public static func leaf(_ leaf: Leaf, priority: Leaf? = nil) -> Node { Node(.leaf(leaf), priority: priority) }

    public var isEmpty: Bool { content == .empty }

    public var leafValue: Leaf? {
        if case .leaf(let l) = content { return l }
        return nil
    }

    public var children: Children {
        if case .children(let c) = content { return c }
        return Children()
    }

    public func child(_ key: Key) -> Node {
        if case .children(let c) = content { return c[key] ?? .empty }
        return .empty
    }

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
    public private(set) var keys: [Key] = []
    public private(set) var nodes: [Node] = []

    public init() {}

    public var count: Int { keys.count }
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

    public mutating func remove(_ key: Key) { self[key] = nil }

    /// Appends a child known to sort after every existing one (used when reading sorted rows).
    public mutating func appendSorted(_ key: Key, _ node: Node) {
        guard !node.isEmpty else { return }
        if let last = keys.last, Key.compare(last, key) >= 0 {
            self[key] = node
            return
        }
        keys.append(key)
        nodes.append(node)
    }

    public func makeIterator() -> Zip2Sequence<[Key], [Node]>.Iterator { zip(keys, nodes).makeIterator() }
}
