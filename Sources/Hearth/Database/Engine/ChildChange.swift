import HearthCore

/// A child event computed by diffing two versions of a view.
struct ChildChange: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case added, changed, removed, moved
    }

    var kind: Kind
    var key: Key
    var node: Node
    var previousKey: Key?

    /// Child events turning `old` into `new`, both already filtered by the view's query, listed in
    /// Firebase's order: removed, added, moved, changed.
    ///
    /// A changed child is also reported moved when the value it is sorted by changed, whether or not
    /// its neighbours did (Firebase's `child_moved`: the indexed value changed); children shifting
    /// because others came or went do not move.
    static func diff(old: Node, new: Node, order: Query.Order) -> [ChildChange] {
        let ordering = Query(order: order)
        let oldRows = ordering.select(from: old)
        let newRows = ordering.select(from: new)
        var oldByKey: [Key: Node] = [:]
        for (k, n) in oldRows { oldByKey[k] = n }
        var newByKey: [Key: Node] = [:]
        for (k, n) in newRows { newByKey[k] = n }

        var removed: [ChildChange] = []
        var previous: Key?
        for (k, n) in oldRows {
            if newByKey[k] == nil { removed.append(ChildChange(kind: .removed, key: k, node: n, previousKey: previous)) }
            previous = k
        }

        var added: [ChildChange] = []
        var moved: [ChildChange] = []
        var changed: [ChildChange] = []
        previous = nil
        for (k, n) in newRows {
            if let before = oldByKey[k] {
                if before != n {
                    if Self.sortValueChanged(before, n, order: order) {
                        moved.append(ChildChange(kind: .moved, key: k, node: n, previousKey: previous))
                    }
                    changed.append(ChildChange(kind: .changed, key: k, node: n, previousKey: previous))
                }
            } else {
                added.append(ChildChange(kind: .added, key: k, node: n, previousKey: previous))
            }
            previous = k
        }
        return removed + added + moved + changed
    }

    /// Whether a child's place in `order` may have changed: what it is sorted by differs.
    static func sortValueChanged(_ before: Node, _ after: Node, order: Query.Order) -> Bool {
        switch order {
        case .key: false
        case .priority: before.priority != after.priority
        case .value: before != after
        case .child(let path): before.child(at: path) != after.child(at: path)
        }
    }
}
