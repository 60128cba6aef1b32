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
    /// A child is reported moved when its own value changed and its place among the children that
    /// exist in both versions changed (children shifting because others came or went do not move).
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

        let commonOld = oldRows.map(\.0).filter { newByKey[$0] != nil }
        let commonNew = newRows.map(\.0).filter { oldByKey[$0] != nil }
        var oldPredecessor: [Key: Key?] = [:]
        for (i, k) in commonOld.enumerated() { oldPredecessor[k] = i > 0 ? commonOld[i - 1] : nil }
        var newPredecessor: [Key: Key?] = [:]
        for (i, k) in commonNew.enumerated() { newPredecessor[k] = i > 0 ? commonNew[i - 1] : nil }

        var added: [ChildChange] = []
        var moved: [ChildChange] = []
        var changed: [ChildChange] = []
        previous = nil
        for (k, n) in newRows {
            if let before = oldByKey[k] {
                if before != n {
                    let oldPrev = oldPredecessor[k] ?? nil
                    let newPrev = newPredecessor[k] ?? nil
                    if oldPrev != newPrev {
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
}
