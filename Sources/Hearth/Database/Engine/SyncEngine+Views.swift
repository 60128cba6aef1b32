import HearthCore

/// A view's current content.
struct ViewResult: Sendable {
    var node: Node
    /// False until the client knows the whole value (from the server, the cache or a local write).
    var complete: Bool
    /// True unless the data underneath comes from a listen the server is keeping up to date.
    var fromCache: Bool
}

extension SyncEngine {
    /// The server data at `path` with every pending write applied (complete or not).
    static func localNode(at path: Path, tree: Node, writes: [PendingWrite]) -> Node {
        var node = tree.child(at: path)
        for w in writes { _ = w.apply(to: &node, at: path) }
        return node
    }

    func localNode(at path: Path) -> Node {
        SyncEngine.localNode(at: path, tree: tree, writes: writes)
    }

    func isLiveUntagged(_ path: Path) -> Bool {
        connected && listens.contains { spec, state in !spec.isTagged && state.live && spec.path.isAncestor(ofOrEqualTo: path) }
    }

    /// What an observer of `spec` sees now.
    func view(_ spec: ViewSpec) -> ViewResult {
        let listen = spec.listen
        let untaggedComplete = complete.covers(spec.path)
        let untaggedLive = untaggedComplete && isLiveUntagged(spec.path)
        let tagged = listen.isTagged ? queryData[listen] : nil
        let taggedLive = tagged != nil && connected && listens[listen]?.live == true

        var base: Node
        var isComplete = true
        var live = false
        if untaggedLive {
            base = tree.child(at: spec.path)
            live = true
        } else if let tagged, taggedLive {
            return finish(spec, base: tagged, complete: true, live: true, serverWindow: true)
        } else if untaggedComplete {
            base = tree.child(at: spec.path)
        } else if let tagged {
            return finish(spec, base: tagged, complete: true, live: false, serverWindow: true)
        } else {
            base = tree.child(at: spec.path)
            isComplete = false
        }
        return finish(spec, base: base, complete: isComplete, live: live)
    }

    /// Applies pending writes and the query's filter to server data at the view's path.
    /// - Parameter serverWindow: `base` is what the server sent for the view's query (a limited query's window), not
    ///   the whole location: children a local write moves out past the window's edge are dropped, because children
    ///   the client never saw may sort between (Firebase's limited filter does the same until the server answers).
    func finish(_ spec: ViewSpec, base: Node, complete: Bool, live: Bool, serverWindow: Bool = false) -> ViewResult {
        var node = base
        var isComplete = complete
        var overwritten = false
        for w in writes where w.apply(to: &node, at: spec.path) { (isComplete, overwritten) = (true, true) }
        if spec.isFiltered, let q = spec.query {
            let edited = node != base
            node = q.apply(to: node)
            if serverWindow, edited, !overwritten { node = Self.keepingKnownWindow(node, serverWindow: base, query: q) }
        }
        return ViewResult(node: node, complete: isComplete, fromCache: !live)
    }

    /// `result` without the children that sort beyond the edge of a full limited window the server sent (below its
    /// first child for limitToLast, above its last for limitToFirst).
    static func keepingKnownWindow(_ result: Node, serverWindow: Node, query q: Query) -> Node {
        guard let limit = q.limit else { return result }
        let known = q.select(from: serverWindow)
        let count: Int
        let edge: (Key, Node)?
        switch limit {
        case .last(let n): (count, edge) = (n, known.first)
        case .first(let n): (count, edge) = (n, known.last)
        }
        guard known.count >= count, let edge else { return result }
        let edgeValue = (edge.0, q.indexValue(of: edge.1, key: edge.0))
        guard case .children(let children) = result.content else { return result }
        var out = Children()
        for (k, n) in children {
            let side = q.compare((k, q.indexValue(of: n, key: k)), edgeValue)
            if case .last = limit, side < 0 { continue }
            if case .first = limit, side > 0 { continue }
            out.appendSorted(k, n)
        }
        return Node(.children(out))
    }

    /// Recomputes every observer's view and reports what changed.
    func refresh() {
        for id in subscriptions.keys.sorted() { refresh(id) }
        guard !completionWaiters.isEmpty else { return }
        var waiting: [(ViewSpec, Completion)] = []
        for (spec, c) in completionWaiters {
            if view(spec).complete { c.succeed() } else { waiting.append((spec, c)) }
        }
        completionWaiters = waiting
    }

    func refresh(_ id: Int) {
        guard var sub = subscriptions[id] else { return }
        let v = view(sub.spec)
        let confirmed = sub.kind == .value && sub.lastFromCache && !v.fromCache
        guard v.complete, sub.last != v.node || confirmed else { return }
        switch sub.kind {
        case .value:
            sub.sink(.value(v.node, fromCache: v.fromCache))
            sub.lastFromCache = v.fromCache
        case .children:
            let changes = ChildChange.diff(old: sub.last ?? .empty, new: v.node, order: sub.spec.order)
            if !changes.isEmpty { sub.sink(.children(changes, fromCache: v.fromCache)) }
        }
        sub.last = v.node
        subscriptions[id] = sub
    }

    // MARK: - Observers

    func add(_ sub: Subscription) {
        guard !closed else {
            sub.sink(.finished)
            return
        }
        subscriptions[sub.id] = sub
        acquire(sub.spec.listen)
        refresh(sub.id)
    }

    func remove(_ id: Int) {
        guard let sub = subscriptions.removeValue(forKey: id) else { return }
        release(sub.spec.listen)
    }

    func keepSynced(_ spec: ViewSpec, _ on: Bool) {
        if on {
            if keptSynced.insert(spec).inserted { acquire(spec.listen) }
        } else if keptSynced.remove(spec) != nil {
            release(spec.listen)
        }
    }

    /// Returns once the view is complete (from the server, the cache or a local write).
    func waitUntilComplete(_ spec: ViewSpec) async throws(DatabaseError) {
        if view(spec).complete { return }
        // Closed: nothing will complete it (a call that reached the engine after `close()`).
        guard !closed else { throw .databaseClosed(spec.path.description) }
        let c = Completion()
        completionWaiters.append((spec, c))
        try await c.wait()
    }
}
