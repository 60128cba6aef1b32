/// A Realtime Database query: an ordering, optional start/end bounds and an optional limit.
///
/// ```swift
/// let q = try Query(parameters: ["orderBy": "\"height\"", "limitToLast": "2"])
/// let result = q.apply(to: dinosaurs)
/// ```
public struct Query: Sendable, Hashable {
    /// What children are ordered by (`orderBy`).
    public enum Order: Sendable, Hashable {
        /// `$key`, `$value` or `$priority`.
        case key, value, priority
        /// The value at a child path of each child (`orderBy="height"`, `orderBy="a/b"`); the parsers refuse the root.
        case child(Path)
    }

    /// A bound: a value (nil = JSON null), an optional key tie-breaker, and whether it is strict.
    public struct Bound: Sendable, Hashable {
        /// The value compared with each child's index value; nil is JSON `null`.
        public var value: Leaf?
        /// Among children whose index value equals `value`, the key to start or end at (`startAt=1,"b"`).
        public var key: Key?
        /// True for `startAfter`/`endBefore`: a child equal to the bound is excluded.
        public var strict: Bool

        /// A bound at `value` (and `key`), inclusive unless `strict`.
        public init(value: Leaf?, key: Key? = nil, strict: Bool = false) {
            self.value = value
            self.key = key
            self.strict = strict
        }
    }

    /// How many children to keep, counted from the start or the end of the ordered range.
    public enum Limit: Sendable, Hashable {
        /// `limitToFirst`: the first `n` children.
        case first(Int)
        /// `limitToLast`: the last `n` children.
        case last(Int)
    }

    /// What children are ordered by.
    public var order: Order
    /// The lower bound (`startAt`, `startAfter`, or `equalTo`); nil = from the first child.
    public var start: Bound?
    /// The upper bound (`endAt`, `endBefore`, or `equalTo`); nil = to the last child.
    public var end: Bound?
    /// The limit applied after the bounds; nil = every child in range.
    public var limit: Limit?

    /// A query from its parts, unchecked (``init(parameters:)`` applies Firebase's checks to REST input).
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
    /// No value: a missing child (or a node without priority, for `$priority`). Sorts first.
    case null
    /// A primitive, ordered by ``Leaf/compare(_:_:)``.
    case leaf(Leaf)
    /// An object. Sorts last; all objects tie (the key decides).
    case object

    /// Three-way comparison in Firebase order (null < primitives < objects): negative, zero or positive.
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

    /// The index value of a node: empty is `.null`, a leaf is `.leaf`, anything with children is `.object`.
    public init(_ node: Node) {
        switch node.content {
        case .empty: self = .null
        case .leaf(let l): self = .leaf(l)
        case .children: self = .object
        }
    }

    /// The index value of an optional primitive (a priority or a bound): nil is `.null`.
    public init(_ leaf: Leaf?) {
        self = leaf.map { .leaf($0) } ?? .null
    }
}
