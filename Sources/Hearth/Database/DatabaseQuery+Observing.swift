import HearthCore

extension DatabaseQueryable {
    /// The data as it changes: the current value first (as soon as it is known — from the cache,
    /// a local write or the server), then every new value.
    ///
    /// ```swift
    /// for try await snapshot in db.reference("rooms/1/title").snapshots() {
    ///     title = try snapshot.value(as: String?.self)
    /// }
    /// ```
    public func snapshots() -> DatabaseEventStream<DataSnapshot> {
        let query = databaseQuery
        let ref = query.ref
        return observeStream(kind: .value) { update, continuation in
            if case .value(let node, let fromCache) = update {
                continuation.yield(DataSnapshot(ref: ref, node: node, order: query.order ?? .priority, isFromCache: fromCache))
            }
        }
    }

    /// Child events (added, changed, removed, moved — with the previous sibling's key), computed on
    /// the client from successive versions of the view. Starts with an `added` for every child.
    public func childEvents() -> DatabaseEventStream<ChildEvent> {
        let ref = databaseQuery.ref
        return observeStream(kind: .children) { update, continuation in
            guard case .children(let changes, let fromCache) = update else { return }
            for change in changes { continuation.yield(ChildEvent(change, parent: ref, fromCache: fromCache)) }
        }
    }

    private func observeStream<Element: Sendable>(
        kind: Subscription.Kind,
        _ deliver: @escaping @Sendable (ViewUpdate, AsyncThrowingStream<Element, any Error>.Continuation) -> Void
    ) -> DatabaseEventStream<Element> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        let spec: ViewSpec
        do {
            spec = try databaseQuery.viewSpec()
        } catch {
            continuation.finish(throwing: error)
            return DatabaseEventStream(base: stream)
        }
        let engine = databaseQuery.ref.database.engine
        let id = engine.makeSubscriptionID()
        let sink: @Sendable (ViewUpdate) -> Void = { update in
            switch update {
            case .failed(let error): continuation.finish(throwing: error)
            case .finished: continuation.finish()
            default: deliver(update, continuation)
            }
        }
        continuation.onTermination = { _ in engine.commands.yield(.unsubscribe(id)) }
        engine.commands.yield(.subscribe(Subscription(id: id, spec: spec, kind: kind, sink: sink)))
        return DatabaseEventStream(base: stream)
    }

    /// Reads the data once: from an active listen when there is one, else from the server, else
    /// (offline) from the cache — see ``DataSnapshot/isFromCache``.
    public func getSnapshot() async throws(DatabaseError) -> DataSnapshot {
        let query = databaseQuery
        let result = try await query.ref.database.engine.get(try query.viewSpec())
        return DataSnapshot(ref: query.ref, node: result.node, order: query.order ?? .priority, isFromCache: result.fromCache)
    }

    /// Reads and decodes the data once. Throws `notFound` when there is none (use an optional
    /// type to get nil instead) and `decodingFailed` when it does not fit.
    public func getValue<T: Decodable>(as type: T.Type = T.self) async throws(DatabaseError) -> T {
        try await getSnapshot().value(as: type)
    }

    /// Keeps this location's data synced (and cached) even with no observer.
    public func keepSynced(_ synced: Bool) {
        let query = databaseQuery
        guard let spec = try? query.viewSpec() else { return }
        query.ref.database.engine.commands.yield(.keepSynced(spec, synced))
    }
}

extension ChildEvent {
    init(_ change: ChildChange, parent: DatabaseReference, fromCache: Bool) {
        let snapshot = DataSnapshot(ref: parent.child(change.key.string), node: change.node, order: .priority, isFromCache: fromCache)
        let previous = change.previousKey?.string
        switch change.kind {
        case .added: self = .added(snapshot, previousSiblingKey: previous)
        case .changed: self = .changed(snapshot, previousSiblingKey: previous)
        case .removed: self = .removed(snapshot, previousSiblingKey: previous)
        case .moved: self = .moved(snapshot, previousSiblingKey: previous)
        }
    }
}
