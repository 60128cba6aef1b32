extension Node {
    /// The node with many locations replaced in one pass: `paths[i]` gets `transform(i, nodeThere)`.
    ///
    /// Calling ``setting(_:to:)`` once per path copies each parent's children every time, so n paths under
    /// one parent cost O(n²); this sorts the paths once and merges each parent's changes in one go,
    /// O(n log n) plus the children of the nodes it passes through. The result is normalised as
    /// ``setting(_:to:)`` normalises it. Edits of the same path run in index order, and an edit of a path
    /// sees every edit below that path already made.
    /// ```swift
    /// let node = Node.empty.updating([Path("a/x"), Path("b")]) { i, _ in .leaf(.int(Int64(i))) }
    /// // {"a":{"x":0},"b":1}
    /// ```
    public func updating(_ paths: [Path], _ transform: (Int, Node) throws -> Node) rethrows -> Node {
        guard !paths.isEmpty else { return self }
        var order = Array(paths.indices)
        order.sort { a, b in
            let c = Path.compare(paths[a], paths[b])
            return c != 0 ? c < 0 : a < b
        }
        return try updating(order[...], paths, depth: 0, transform)
    }

    /// `edits` index `paths`, sorted, all sharing their first `depth` keys (the path of `self`).
    private func updating(
        _ edits: ArraySlice<Int>, _ paths: [Path], depth: Int, _ transform: (Int, Node) throws -> Node
    ) rethrows -> Node {
        // Paths ending here sort before the longer ones sharing the prefix.
        var i = edits.startIndex
        while i < edits.endIndex, paths[edits[i]].count == depth { i += 1 }
        let own = edits[..<i]
        var updates: [(Key, Node)] = []
        while i < edits.endIndex {
            let key = paths[edits[i]].keys[depth]
            var j = i + 1
            while j < edits.endIndex, paths[edits[j]].keys[depth] == key { j += 1 }
            let current = child(key)
            let updated = try current.updating(edits[i..<j], paths, depth: depth + 1, transform)
            // Removing what is not there changes nothing (a leaf on the way stays a leaf).
            if !(updated.isEmpty && current.isEmpty) { updates.append((key, updated)) }
            i = j
        }
        var node = self
        if !updates.isEmpty {
            node = Node(.children(children.merging(sorted: updates)), priority: priority)
        }
        for e in own { node = try transform(e, node) }
        return node
    }
}

extension Path {
    /// Three-way comparison, key by key in Firebase key order; an ancestor sorts before its descendants,
    /// so a subtree's paths are contiguous in sorted order.
    public static func compare(_ a: Path, _ b: Path) -> Int {
        for (x, y) in zip(a.keys, b.keys) {
            let c = Key.compare(x, y)
            if c != 0 { return c }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
