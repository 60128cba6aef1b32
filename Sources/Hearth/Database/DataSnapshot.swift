public import HearthCore

/// The data at a location (or a query's result) at one moment.
///
/// ```swift
/// let snapshot = try await db.reference("users").queryOrdered(byChild: "age").getSnapshot()
/// for child in snapshot.children {
///     print(child.key ?? "", try child.value(as: User.self))
/// }
/// ```
public struct DataSnapshot: Sendable {
    /// Where the data is.
    public let ref: DatabaseReference
    let node: Node
    let order: Query.Order
    /// True when the data did not come from a server listen that is keeping it current: read
    /// from the on-disk cache, while offline, or before the server answered.
    public let isFromCache: Bool

    init(ref: DatabaseReference, node: Node, order: Query.Order, isFromCache: Bool) {
        self.ref = ref
        self.node = node
        self.order = order
        self.isFromCache = isFromCache
    }

    /// The location's key (nil at the root).
    public var key: String? { ref.key }

    /// Whether anything is stored here.
    public var exists: Bool { !node.isEmpty }

    /// The data as plain JSON (`.null` when absent; dense integer keys read as arrays; no priorities).
    public var value: JSONValue { DatabaseCoding.plainJSON(node) }

    /// The data with priorities (`.priority` / `.value` members), as the server exports it.
    public var exportValue: JSONValue { DatabaseCoding.exportJSON(node) }

    /// Decodes the data. Throws `notFound` when nothing is stored (unless `T` is optional) and
    /// `decodingFailed` when the JSON does not fit `T`.
    public func value<T: Decodable>(as type: T.Type = T.self) throws(DatabaseError) -> T {
        try DatabaseCoding.decode(type, from: node, path: ref.location)
    }

    /// The priority (`.null` when none).
    public var priority: PrimitiveValue { PrimitiveValue(node.priority) }

    /// The children, in the query's order (priority order, then key, for a plain reference).
    public var children: [DataSnapshot] {
        Query(order: order).select(from: node).map { key, child in
            DataSnapshot(ref: ref.child(key.string), node: child, order: .priority, isFromCache: isFromCache)
        }
    }

    /// The number of direct children.
    public var childrenCount: Int { node.childCount }

    /// Whether there is at least one child.
    public var hasChildren: Bool { node.childCount > 0 }

    /// The data at a relative path (which may have several segments).
    public func childSnapshot(forPath path: String) -> DataSnapshot {
        DataSnapshot(ref: ref.child(path), node: node.child(at: Path(path)), order: .priority, isFromCache: isFromCache)
    }

    /// Whether there is data at a relative path.
    public func hasChild(_ path: String) -> Bool { !node.child(at: Path(path)).isEmpty }
}

/// A change to one child of an observed location or query.
public enum ChildEvent: Sendable {
    /// A child appeared (including every child present when observing starts).
    case added(DataSnapshot, previousSiblingKey: String?)
    /// A child's data changed.
    case changed(DataSnapshot, previousSiblingKey: String?)
    /// A child went away (the key is the one that preceded it before).
    case removed(DataSnapshot, previousSiblingKey: String?)
    /// A child's order value changed and it now sits after `previousSiblingKey`.
    case moved(DataSnapshot, previousSiblingKey: String?)

    /// The child's data (its last data for `removed`).
    public var snapshot: DataSnapshot {
        switch self {
        case .added(let s, _), .changed(let s, _), .removed(let s, _), .moved(let s, _): return s
        }
    }

    /// The key of the child before this one in query order (nil when first).
    public var previousSiblingKey: String? {
        switch self {
        case .added(_, let k), .changed(_, let k), .removed(_, let k), .moved(_, let k): return k
        }
    }

    /// The matching Firebase event type.
    public var eventType: DataEventType {
        switch self {
        case .added: return .childAdded
        case .changed: return .childChanged
        case .removed: return .childRemoved
        case .moved: return .childMoved
        }
    }
}

/// Firebase's event types (used by ``DatabaseQueryable/observe(_:with:)``).
public enum DataEventType: Sendable, Hashable {
    /// `value` is the whole data at the location (``DatabaseQueryable/snapshots()``); the `child…` cases are one
    /// child added, changed, removed or moved in the query's order (``DatabaseQueryable/childEvents()``).
    case value, childAdded, childChanged, childRemoved, childMoved
}
