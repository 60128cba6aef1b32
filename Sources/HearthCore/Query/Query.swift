/// A Realtime Database query: an ordering, optional start/end bounds and an optional limit.
///
/// ```swift
/// let q = try Query(parameters: ["orderBy": "\"height\"", "limitToLast": "2"])
/// let result = q.apply(to: dinosaurs)
/// ```
public struct Query: Sendable, Hashable {
    public enum Order: Sendable, Hashable {
        case key, value, priority
        case child(Path)
    }

    /// A bound: a value (nil = JSON null), an optional key tie-breaker, and whether it is strict.
    public struct Bound: Sendable, Hashable {
        public var value: Leaf?
        public var key: Key?
        public var strict: Bool

        public init(value: Leaf?, key: Key? = nil, strict: Bool = false) {
            self.value = value
            self.key = key
            self.strict = strict
        }
    }

    public enum Limit: Sendable, Hashable {
        case first(Int)
        case last(Int)
    }

    public var order: Order
    public var start: Bound?
    public var end: Bound?
    public var limit: Limit?

    public init(order: Order, start: Bound? = nil, end: Bound? = nil, limit: Limit? = nil) {
        self.order = order
        self.start = start
        self.end = end
        self.limit = limit
    }

    /// True when the query has no bounds or limits (it only orders).
    public var isUnfiltered: Bool { start == nil && end == nil && limit == nil }
}

/// The value a child is ordered by.
public enum IndexValue: Sendable, Hashable {
    case null
    case leaf(Leaf)
    case object

    public static func compare(_ a: IndexValue, _ b: IndexValue) -> Int {
        switch (a, b) {
        case (.null, .null), (.object, .object): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.object, _): return 1
        case (_, .object): return -1
        case let (.leaf(x), .leaf(y)): return Leaf.compare(x, y)
        }
    }

    public init(_ node: Node) {
        switch node.content {
        case .empty: self = .null
        case .leaf(let l): self = .leaf(l)
        case .children: self = .object
        }
    }

    public init(_ leaf: Leaf?) {
        self = leaf.map { .leaf($0) } ?? .null
    }
}
