import HearthCore

/// Identifies an observer registered with ``DatabaseQueryable/observe(_:with:)``.
public typealias DatabaseHandle = Int

/// Firebase-style calls, for moving existing code over; new code should prefer `snapshots()`,
/// `childEvents()` and `getSnapshot()`.
extension DatabaseQueryable {
    /// Waits for the first event of a type. For `.value` this is ``getSnapshot()``: the server's
    /// data when online, the cache only when offline — not a stale cached value from an earlier
    /// listen, which Firebase's SDKs can return here.
    public func observeSingleEvent(of type: DataEventType) async throws(DatabaseError) -> DataSnapshot {
        if type == .value {
            return try await getSnapshot()
        } else {
            for try await event in childEvents() where event.eventType == type { return event.snapshot }
        }
        throw .disconnected(databaseQuery.ref.path)
    }

    /// Calls `block` for every event of a type until ``removeObserver(withHandle:)``.
    ///
    /// The block runs on the database's internal executor: hop to the main actor yourself before
    /// touching UI, and do not block in it.
    @discardableResult
    public func observe(_ type: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void) -> DatabaseHandle {
        let query = databaseQuery
        let ref = query.ref
        let engine = ref.database.engine
        let id = engine.makeSubscriptionID()
        guard let spec = try? query.viewSpec() else { return id }
        let sink: @Sendable (ViewUpdate) -> Void
        if type == .value {
            sink = { update in
                if case .value(let node, let fromCache) = update {
                    block(DataSnapshot(ref: ref, node: node, order: query.order ?? .priority, isFromCache: fromCache))
                }
            }
        } else {
            sink = { update in
                guard case .children(let changes, let fromCache) = update else { return }
                for change in changes {
                    let event = ChildEvent(change, parent: ref, fromCache: fromCache)
                    if event.eventType == type { block(event.snapshot) }
                }
            }
        }
        engine.commands.yield(
            .subscribe(Subscription(id: id, spec: spec, kind: type == .value ? .value : .children, sink: sink)))
        return id
    }

    /// Stops an observer registered with ``observe(_:with:)``.
    public func removeObserver(withHandle handle: DatabaseHandle) {
        databaseQuery.ref.database.engine.commands.yield(.unsubscribe(handle))
    }
}
