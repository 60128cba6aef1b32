/// Public: `SearchKey`, re-exported below, is HearthCore's.
public import HearthCore

/// The normal form of a text for prefix search (``DatabaseQuery/queryStarting(withPrefix:)``), so that an
/// app needs only `import Hearth`: see `HearthCore.SearchKey`.
public typealias SearchKey = HearthCore.SearchKey

extension DatabaseQuery {
    /// Keeps the children whose ordered value starts with `prefix`, ignoring case and accents: `Jó` finds
    /// `józsef` and `jozsef`, the empty prefix every child whose value is a string.
    ///
    /// ```swift
    /// let people = db.reference("users").queryOrdered(byChild: "searchKey").queryStarting(withPrefix: "Jó")
    /// for try await snapshot in people.queryLimited(toFirst: 20).snapshots() { … }
    /// ```
    ///
    /// The ordered child must hold the **normalized** text, `SearchKey.normalize(name)`, not the name
    /// itself: the query compares stored values with `SearchKey.normalize(prefix)` and matches nothing
    /// else (`"József"` stored as it is is not found by `"jó"`). Store it from a database trigger so that
    /// clients cannot fake it, and add `.indexOn` for the child in the rules (see docs/search.md).
    ///
    /// It is `queryStarting(atValue: start).queryEnding(atValue: end)` with
    /// `SearchKey.prefixRange(prefix)`, so call it after `queryOrdered(byChild:)` (or
    /// `queryOrderedByValue()` on a list of keys), and instead of any other start or end; a limit may follow.
    /// As with the other builders, misuse is a programming error: calling it on a query ordered by key or
    /// priority (or not ordered), or one that already has a start or an end, stops the program.
    public func queryStarting(withPrefix prefix: String) -> DatabaseQuery {
        switch order {
        case .child?, .value?: break
        default:
            preconditionFailure("queryStarting(withPrefix:) needs a query ordered by a child (or by value)")
        }
        let range = SearchKey.prefixRange(prefix)
        return queryStarting(atValue: .string(range.start)).queryEnding(atValue: .string(range.end))
    }
}
