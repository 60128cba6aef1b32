import HearthCore

/// Something that can be observed and read: a reference (all of its children) or a query.
///
/// ```swift
/// let tallest = db.reference("dinosaurs").queryOrdered(byChild: "height").queryLimited(toLast: 2)
/// for try await snapshot in tallest.snapshots() {
///     print(snapshot.children.map(\.key))
/// }
/// ```
public protocol DatabaseQueryable: Sendable {
    /// The query this value stands for.
    var databaseQuery: DatabaseQuery { get }
}

/// A location with an ordering, bounds and a limit. Build one from a reference with the
/// `query…` methods; misuse (two orderings, two limits, two starts) is a programming error.
///
/// Queries with a range or a limit get their own (tagged) server listen; order-only queries share
/// the location's plain listen and are ordered on the client. Either way the client re-evaluates
/// the query locally, so pending writes show up correctly in query results.
public struct DatabaseQuery: Sendable, DatabaseQueryable {
    /// The queried location.
    public let ref: DatabaseReference
    var order: Query.Order?
    var start: Query.Bound?
    var end: Query.Bound?
    var limit: Query.Limit?

    init(ref: DatabaseReference) {
        self.ref = ref
    }

    /// The query itself.
    public var databaseQuery: DatabaseQuery { self }

    /// The HearthCore query (nil when nothing was specified).
    var query: Query? {
        if order == nil, start == nil, end == nil, limit == nil { return nil }
        return Query(order: order ?? .priority, start: start, end: end, limit: limit)
    }

    func viewSpec() throws(DatabaseError) -> ViewSpec {
        ViewSpec(path: try ref.validated(), query: query)
    }
}

extension DatabaseQueryable {
    // MARK: - Building queries

    private func ordered(_ order: Query.Order) -> DatabaseQuery {
        var q = databaseQuery
        precondition(q.order == nil, "A query can only be ordered once")
        q.order = order
        return q
    }

    /// Orders children by the value at a relative path in each (`"height"`, `"ratings/pos"`).
    public func queryOrdered(byChild path: String) -> DatabaseQuery { ordered(.child(Path(path))) }

    /// Orders children by key (integer-like keys first, numerically).
    public func queryOrderedByKey() -> DatabaseQuery { ordered(.key) }

    /// Orders children by their value (null < false < true < numbers < strings < objects).
    public func queryOrderedByValue() -> DatabaseQuery { ordered(.value) }

    /// Orders children by priority (the default order).
    public func queryOrderedByPriority() -> DatabaseQuery { ordered(.priority) }

    private func starting(_ value: PrimitiveValue, _ key: String?, strict: Bool) -> DatabaseQuery {
        var q = databaseQuery
        precondition(q.start == nil, "A query can only have one start (startAt, startAfter or equalTo)")
        q.start = Query.Bound(value: value.leaf, key: key.map { Key($0) }, strict: strict)
        return q
    }

    private func ending(_ value: PrimitiveValue, _ key: String?, strict: Bool) -> DatabaseQuery {
        var q = databaseQuery
        precondition(q.end == nil, "A query can only have one end (endAt, endBefore or equalTo)")
        q.end = Query.Bound(value: value.leaf, key: key.map { Key($0) }, strict: strict)
        return q
    }

    /// Keeps children whose order value is ≥ `value` (and, on ties, whose key is ≥ `childKey`).
    public func queryStarting(atValue value: PrimitiveValue, childKey: String? = nil) -> DatabaseQuery {
        starting(value, childKey, strict: false)
    }

    /// Keeps children whose order value is > `value` (or equal with a key > `childKey`).
    public func queryStarting(afterValue value: PrimitiveValue, childKey: String? = nil) -> DatabaseQuery {
        starting(value, childKey, strict: true)
    }

    /// Keeps children whose order value is ≤ `value` (and, on ties, whose key is ≤ `childKey`).
    public func queryEnding(atValue value: PrimitiveValue, childKey: String? = nil) -> DatabaseQuery {
        ending(value, childKey, strict: false)
    }

    /// Keeps children whose order value is < `value` (or equal with a key < `childKey`).
    public func queryEnding(beforeValue value: PrimitiveValue, childKey: String? = nil) -> DatabaseQuery {
        ending(value, childKey, strict: true)
    }

    /// Keeps children whose order value equals `value` (and key equals `childKey`, if given).
    public func queryEqual(toValue value: PrimitiveValue, childKey: String? = nil) -> DatabaseQuery {
        starting(value, childKey, strict: false).ending(value, childKey, strict: false)
    }

    /// Keeps the first `limit` children in query order.
    public func queryLimited(toFirst limit: Int) -> DatabaseQuery {
        var q = databaseQuery
        precondition(q.limit == nil, "A query can only have one limit")
        precondition(limit >= 0, "A limit must not be negative")
        q.limit = .first(limit)
        return q
    }

    /// Keeps the last `limit` children in query order.
    public func queryLimited(toLast limit: Int) -> DatabaseQuery {
        var q = databaseQuery
        precondition(q.limit == nil, "A query can only have one limit")
        precondition(limit >= 0, "A limit must not be negative")
        q.limit = .last(limit)
        return q
    }
}
