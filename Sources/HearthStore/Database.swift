public import HearthCore

/// Receives every committed change, in commit order, before the next batch commits.
public protocol ChangeObserver: Sendable {
    /// The changes of one commit, each with its sequence number, in order. Called on the writer: return quickly.
    func didCommit(_ changes: [Change])
    /// Called by the writer after ``didCommit(_:)``; an observer that handles changes later and
    /// has fallen too far behind returns only once it caught up, which holds the next commit.
    func backpressure() async
    /// Commits were made that this observer will never be told of (a shared store's change log no
    /// longer reaches back to them): whatever it passed on before may be out of date, and what
    /// follows comes after a gap. Listeners must read the current state again.
    func changesLost()
}

extension ChangeObserver {
    /// By default an observer never holds the writer back.
    public func backpressure() async {}
    /// By default an observer keeps no state that a gap could make stale.
    public func changesLost() {}
}

/// One namespace: a store plus the serial writer that batches concurrent writes into one
/// transaction (group commit) and reports changes in commit order.
public actor Database {
    /// The namespace's name.
    public nonisolated let name: String
    /// The namespace's store; read it directly (snapshots never wait for the writer), write only through ``write(_:)``.
    public nonisolated let store: any DatabaseStore
    private let observer: any ChangeObserver
    private let clock: @Sendable () -> Int64
    private let pushIDs: PushIDGenerator
    private let triggers: TriggerRecorder?
    private let onEventsQueued: @Sendable () -> Void
    /// The latest commit time used for push ids; never goes back, even if the clock does.
    private var pushMillis: Int64 = .min

    private enum Signal: Sendable {
        case done(Result<WriteOutcome, any Error>)
        case drain
    }

    private struct Pending {
        var request: WriteRequest
        var continuation: CheckedContinuation<Signal, Never>?
    }

    private var pending: [Pending] = []
    private var draining = false
    private var sequence: UInt64

    /// Reads the last committed sequence number from `store`, so numbering continues after a restart.
    ///
    /// - Parameters:
    ///   - name: the namespace's name.
    ///   - store: where the namespace's data lives.
    ///   - observer: told of every commit's changes, in order (the realtime hub).
    ///   - clock: milliseconds since 1970 (injected for tests).
    ///   - pushIDs: names the children that `.push` writes create (injected for tests).
    ///   - triggers: database triggers whose events are enqueued in the outbox, in the transaction of
    ///     the write that causes them.
    ///   - onEventsQueued: called after a commit that enqueued trigger events.
    public init(
        name: String, store: any DatabaseStore, observer: any ChangeObserver,
        clock: @escaping @Sendable () -> Int64, pushIDs: PushIDGenerator = PushIDGenerator(),
        triggers: [DatabaseTrigger] = [], onEventsQueued: @escaping @Sendable () -> Void = {}
    ) async throws {
        self.name = name
        self.triggers = TriggerRecorder(triggers)
        self.onEventsQueued = onEventsQueued
        self.store = store
        self.observer = observer
        self.clock = clock
        self.pushIDs = pushIDs
        self.sequence = try await store.snapshot { try $0.sequence() }
    }

    /// Applies one write; resolves after it is durably committed.
    public func write(_ request: WriteRequest) async throws -> WriteOutcome {
        var batch = [Pending(request: request, continuation: nil)]
        if draining {
            let signal = await withCheckedContinuation { pending.append(Pending(request: request, continuation: $0)) }
            switch signal {
            case .done(let result): return try result.get()
            case .drain:
                batch = pending
                pending = []
                // Our own request is in the pending list; it is the first entry.
            }
        }
        draining = true
        let results = await commit(batch)
        for (p, r) in zip(batch.dropFirst(), results.dropFirst()) { p.continuation?.resume(returning: .done(r)) }
        if pending.isEmpty {
            draining = false
        } else {
            // Hand the drain to the oldest waiter; it commits everything pending, itself first.
            pending[0].continuation?.resume(returning: .drain)
        }
        return try results[0].get()
    }

    private func commit(_ batch: [Pending]) async -> [Result<WriteOutcome, any Error>] {
        let now = clock()
        pushMillis = max(pushMillis, now)
        let pushContext = PushContext(generator: pushIDs, millis: pushMillis)
        let first = sequence + 1
        let requests = batch.map(\.request)
        let triggers = self.triggers
        do {
            let (results, changes, queued) = try await store.write { tx in
                var results: [Result<WriteOutcome, any Error>] = []
                var changes: [Change] = []
                var queued = 0
                // Shared by several nodes, the store's counter decides (and stays locked until commit).
                var seq = try tx.lockSequence().map { $0 + 1 } ?? first
                for var request in requests {
                    if let compute = request.compute {
                        let operation: WriteRequest.Operation?
                        do {
                            operation = try compute(tx, now, &request.events)
                        } catch {
                            results.append(.failure(error))
                            continue
                        }
                        guard let operation else {
                            queued += try Database.enqueue(request.events, tx: tx, now: now)
                            results.append(.success(.committed(.update(entries: [], priorities: []), etag: nil)))
                            continue
                        }
                        request.operation = operation
                        request.compute = nil
                    }
                    do {
                        let capture = try triggers?.before(request, tx: tx)
                        let (outcome, change) = try Database.apply(request, tx: tx, now: now, push: pushContext, sequence: seq)
                        if let change {
                            if let triggers, let capture {
                                queued += try triggers.record(change, before: capture, tx: tx, now: now, depth: request.triggerDepth + 1)
                            }
                            changes.append(change)
                            seq += 1
                        }
                        if case .committed = outcome { queued += try Database.enqueue(request.events, tx: tx, now: now) }
                        results.append(.success(outcome))
                    } catch let error as ValidationError {
                        results.append(.failure(error))
                    } catch let error as PermissionDenied {
                        results.append(.failure(error))
                    } catch let error as AlreadyApplied {
                        results.append(.failure(error))
                    }
                }
                if let last = changes.last {
                    try tx.setSequence(last.sequence)
                    try tx.logChanges(changes)
                }
                return (results, changes, queued)
            }
            if let last = changes.last { sequence = last.sequence }
            CommitBatches.record(batch.count)
            if !changes.isEmpty {
                CommittedWrites.add(changes.count)
                observer.didCommit(changes)
                await observer.backpressure()
            }
            if queued > 0 { onEventsQueued() }
            return results
        } catch {
            return Array(repeating: .failure(error), count: batch.count)
        }
    }

    /// Enqueues a committed request's own events in its transaction; returns how many.
    private static func enqueue(_ events: [WriteRequest.QueuedEvent], tx: any StoreTransaction, now: Int64) throws -> Int {
        for event in events { try tx.enqueueEvent(function: event.function, payload: event.payload, at: now) }
        return events.count
    }

    private static func authorize(_ request: WriteRequest, _ writes: [(path: Path, node: Node)], tx: any StoreTransaction, now: Int64) throws {
        if let authorizer = request.authorizer, let reason = authorizer.denial(for: writes, data: tx, now: now) {
            throw PermissionDenied(reason: reason)
        }
    }

    /// How `.push` writes name their child within one batch.
    struct PushContext: Sendable {
        let generator: PushIDGenerator
        let millis: Int64
    }

    /// What a write answers with: the value written, server values resolved. An increment adds to the
    /// stored value, so where the caller may not read, its result is left out (`null`): echoing it would
    /// show a writer what only a reader may see (`{".sv":{"increment":0}}` would read the value). A
    /// timestamp depends on nothing stored and stays. Rules are asked only when the write has an increment.
    static func echoed(
        _ parsed: ParsedWrite, at target: Path, resolved node: Node, request: WriteRequest, tx: any StoreTransaction, now: Int64
    ) throws -> Node {
        guard let authorizer = request.authorizer, !parsed.placeholders.isEmpty else { return node }
        var shown = parsed
        shown.placeholders.removeAll { p in
            guard case .increment = p.value else { return false }
            return authorizer.readDenial(at: target.appending(p.path), data: tx, now: now) != nil
        }
        if shown.placeholders.count == parsed.placeholders.count { return node }
        return try shown.resolved(now: now) { try tx.read(target.appending($0)) }
    }

    /// Validates and applies one request. Throws `ValidationError` before writing anything.
    static func apply(
        _ request: WriteRequest, tx: any StoreTransaction, now: Int64, push: PushContext, sequence: UInt64
    ) throws -> (WriteOutcome, Change?) {
        if let key = request.idempotencyKey {
            // Checked first, claimed last: a request that fails validation leaves the key unclaimed.
            if try tx.isClaimed(key) { throw AlreadyApplied(key: key) }
            var unkeyed = request
            unkeyed.idempotencyKey = nil
            let result = try apply(unkeyed, tx: tx, now: now, push: push, sequence: sequence)
            if case .committed = result.0 { _ = try tx.claimKey(key, at: now) }
            return result
        }
        if case .push(let parsed) = request.operation {
            // Named here, inside the serial writer, so that key order is commit order.
            // Where nodes share the store, after the namespace's last id whichever node named it.
            let name = push.generator.next(millis: push.millis, after: try tx.lastPushID())
            try tx.setLastPushID(name)
            let id = Key(name)
            var named = request
            named.path = request.path.child(id)
            named.operation = .set(parsed)
            let (_, change) = try apply(named, tx: tx, now: now, push: push, sequence: sequence)
            return (.committed(.pushed(id), etag: nil), change)
        }
        let path = request.path
        /// A failed `if-match` answers with the current value and its ETag. Checked after the write
        /// is authorized. A conditional write (REST `if-match`, a realtime transaction's hash) needs read
        /// access to the location, as Firebase's transactions do, whether it matches or not: whether it
        /// applies tells the caller whether its guess of the value was right.
        func failedPrecondition() throws -> WriteOutcome? {
            guard let expected = request.ifMatch else { return nil }
            if let reason = request.authorizer?.readDenial(at: path, data: tx, now: now) {
                throw PermissionDenied(reason: reason)
            }
            let current = try tx.read(path)
            let etag = current.etag
            if etag == expected || "\"\(etag)\"" == expected { return nil }
            return .preconditionFailed(current: current, etag: etag)
        }
        switch request.operation {
        case .set(let parsed):
            let node = try parsed.resolved(now: now) { try tx.read(path.appending($0)) }
            try authorize(request, [(path, node)], tx: tx, now: now)
            if let failed = try failedPrecondition() { return (failed, nil) }
            // Before the write: an increment shown in the echo adds to the value it found.
            let echo = try echoed(parsed, at: path, resolved: node, request: request, tx: tx, now: now)
            try tx.set(path, node)
            let etag = request.wantsETag ? node.etag : nil
            return (.committed(.value(echo), etag: etag), Change(sequence: sequence, path: path, kind: .put(node)))
        case .update(let entries, let priorities):
            var resolved: [PatchEntry] = []
            var echoes: [Node] = []
            for entry in entries {
                let target = path.appending(entry.path)
                let node = try entry.value.resolved(now: now) { try tx.read(target.appending($0)) }
                resolved.append(PatchEntry(path: entry.path, node: node))
                echoes.append(try echoed(entry.value, at: target, resolved: node, request: request, tx: tx, now: now))
            }
            if request.authorizer != nil {
                var writes = resolved.map { (path: path.appending($0.path), node: $0.node) }
                for p in priorities {
                    let target = path.appending(p.path)
                    writes.append((target, try tx.read(target).withPriority(p.priority)))
                }
                try authorize(request, writes, tx: tx, now: now)
            }
            if let failed = try failedPrecondition() { return (failed, nil) }
            for entry in resolved { try tx.set(path.appending(entry.path), entry.node) }
            let shown = zip(resolved, echoes).map { PatchEntry(path: $0.path, node: $1) }
            var shownPriorities: [PriorityEntry] = []
            for p in priorities {
                let target = path.appending(p.path)
                try tx.setPriority(target, p.priority)
                shownPriorities.append(PriorityEntry(path: p.path, priority: p.priority))
                resolved.append(PatchEntry(path: p.path, node: try tx.read(target)))
            }
            let echo = WriteEcho.update(entries: shown, priorities: shownPriorities)
            if resolved.isEmpty { return (.committed(echo, etag: nil), nil) }
            return (.committed(echo, etag: nil), Change(sequence: sequence, path: path, kind: .patch(resolved)))
        case .push:
            preconditionFailure("handled above")
        case .setPriority(let priority, let placeholder):
            var p = priority
            if case .timestamp? = placeholder { p = .int(now) }
            if request.authorizer != nil {
                try authorize(request, [(path, try tx.read(path).withPriority(p))], tx: tx, now: now)
            }
            if let failed = try failedPrecondition() { return (failed, nil) }
            try tx.setPriority(path, p)
            let node = try tx.read(path)
            return (.committed(.priority(p), etag: request.wantsETag ? node.etag : nil), Change(sequence: sequence, path: path, kind: .put(node)))
        }
    }
}
