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
        let a = old.children
        let b = new.children
        // The children that differ, found by walking both key-sorted lists once. Unchanged subtrees share storage,
        // so comparing them is cheap.
        var gone: [Int] = []
        var came: [Int] = []
        var edited: [(old: Int, new: Int)] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if gone.count + came.count + edited.count > fewChanges { return fullDiff(old: old, new: new, order: order) }
            let c = i == a.count ? 1 : j == b.count ? -1 : Key.compare(a.keys[i], b.keys[j])
            if c == 0 {
                if a.nodes[i] != b.nodes[j] { edited.append((i, j)) }
                i += 1
                j += 1
            } else if c < 0 {
                gone.append(i)
                i += 1
            } else {
                came.append(j)
                j += 1
            }
        }
        guard !(gone.isEmpty && came.isEmpty && edited.isEmpty) else { return [] }
        // Few changes (the usual push: a message added, a score changed): each one's previous sibling in the view's
        // order is found by one pass over its list, instead of sorting both lists.
        let ordering = Query(order: order)
        func rank(_ key: Key, _ node: Node) -> (Key, IndexValue) { (key, ordering.indexValue(of: node, key: key)) }
        // Without priorities, priority order is key order: the previous sibling is the one before in the list.
        let keyOrdered =
            order == .key || (order == .priority && !a.nodes.contains { $0.priority != nil } && !b.nodes.contains { $0.priority != nil })
        func previous(_ index: Int, in list: Children) -> Key? {
            if keyOrdered { return index > 0 ? list.keys[index - 1] : nil }
            let target = rank(list.keys[index], list.nodes[index])
            var best: (Key, IndexValue)?
            for (k, n) in list where k != target.0 {
                let r = rank(k, n)
                if ordering.compare(r, target) < 0, best.map({ ordering.compare(r, $0) > 0 }) ?? true { best = r }
            }
            return best?.0
        }
        func inOrder(_ changes: [ChildChange]) -> [ChildChange] {
            changes.count < 2 ? changes : changes.sorted { ordering.compare(rank($0.key, $0.node), rank($1.key, $1.node)) < 0 }
        }
        let removed = gone.map { ChildChange(kind: .removed, key: a.keys[$0], node: a.nodes[$0], previousKey: previous($0, in: a)) }
        let added = came.map { ChildChange(kind: .added, key: b.keys[$0], node: b.nodes[$0], previousKey: previous($0, in: b)) }
        var moved: [ChildChange] = []
        var changed: [ChildChange] = []
        for (o, n) in edited {
            let change = ChildChange(kind: .changed, key: b.keys[n], node: b.nodes[n], previousKey: previous(n, in: b))
            if Self.sortValueChanged(a.nodes[o], b.nodes[n], order: order) {
                moved.append(ChildChange(kind: .moved, key: change.key, node: change.node, previousKey: change.previousKey))
            }
            changed.append(change)
        }
        // Removed children sort by their old data, the others by their new data, as the full diff lists them.
        return inOrder(removed) + inOrder(added) + inOrder(moved) + inOrder(changed)
    }

    /// Above this many changed children, sorting both lists once costs less than a pass per change.
    static let fewChanges = 8

    /// ``diff(old:new:order:)`` by sorting both versions in the view's order: any number of changes.
    static func fullDiff(old: Node, new: Node, order: Query.Order) -> [ChildChange] {
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
