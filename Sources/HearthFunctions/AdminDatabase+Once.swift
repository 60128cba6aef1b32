import HearthCore
import HearthDatabase
import HearthStore
import Synchronization

extension AdminDatabase {
    /// ``atomically(namespace:_:)`` at most once per `key`: the first call that commits claims `key` in the
    /// same transaction as its writes; any later call with the same key runs nothing, writes nothing and
    /// returns nil. Pass a trigger event's `id` and a retried event (the outbox delivers at least once, in any
    /// order) applies its effect exactly once.
    ///
    /// ```swift
    /// try functions.onValueCreated("/orders/{id}") { event, context in
    ///     try await context.database.atomically(once: event.id) { data, writes in
    ///         let stock = try data.value("stock/\(item)").doubleValue ?? 0
    ///         writes["stock/\(item)"] = .int(Int64(stock) - 1)
    ///     }
    /// }
    /// ```
    ///
    /// - The key is checked inside the writer, before `body` runs: a repeat never runs `body`, so it cannot
    ///   decide differently on data that has changed since (or throw where the first run did not).
    /// - A `body` that records no writes still claims the key (an empty commit changes no data and fires no
    ///   trigger): "nothing to do" is the effect, and a repeat finds the key taken, whatever the data says then.
    /// - A throw from `body` writes nothing, claims nothing and is rethrown: the event's retry runs it again.
    /// - Keys are remembered for 30 days, shared with the `idempotencyKey:` of ``set(_:_:namespace:idempotencyKey:)``
    ///   and the other writes, per database (`namespace`).
    ///
    /// Returns what `body` returned, or nil when `key` was already claimed.
    public func atomically<R: Sendable>(
        once key: String, namespace: String? = nil, _ body: @escaping @Sendable (AtomicSnapshot, inout AtomicWrites) throws -> R
    ) async throws -> R? {
        guard !key.isEmpty else { throw FunctionsError("An idempotency key must not be empty") }
        let service = self.service
        let outcome = Mutex<OnceOutcome<R>?>(nil)
        var request = WriteRequest.computed(at: .root) { data, now in
            // Checked first: `Database.apply` checks the key only after the operation is computed, and not at
            // all when there is none. This read and the claim below are in one transaction of the serial writer.
            if try data.isClaimed(key) {
                outcome.withLock { $0 = .alreadyApplied }
                return nil
            }
            do {
                var writes = AtomicWrites()
                let result = try body(AtomicSnapshot(data: data, now: now), &writes)
                outcome.withLock { $0 = .ran(result) }
                // An empty update commits nothing but is still "committed", so the store claims the key with it.
                if writes.values.isEmpty { return .update([], priorities: []) }
                return try service.updateOperation(writes.values.map { JSONMember($0.key, $0.value) }, at: .root)
            } catch {
                outcome.withLock { $0 = .failed(error) }
                return nil
            }
        }
        request.idempotencyKey = key
        request.triggerDepth = triggerDepth
        let keyed = request
        do {
            _ = try await withOpenDatabase(namespace) { db in try await db.write(keyed) }
        } catch is AlreadyApplied {
            return nil
        }
        switch outcome.withLock({ $0 }) {
        case .ran(let result)?: return result
        case .alreadyApplied?: return nil
        case .failed(let error)?: throw error
        case nil: throw FunctionsError("The atomic write did not run")
        }
    }

    /// As the private `withDatabase` of ``AdminDatabase``: runs `body` with the namespace held open.
    private func withOpenDatabase<T: Sendable>(_ namespace: String?, _ body: (Database) async throws -> T) async throws -> T {
        let name = namespace ?? defaultNamespace
        guard NamespaceRegistry.isValid(name) else { throw FunctionsError("Invalid namespace \"\(name)\"") }
        do {
            return try await service.withNamespace(name) { try await body($0.database) }
        } catch DatabaseError.namespace(let error) where error.code == .notFound {
            throw FunctionsError("There is no database \"\(name)\"")
        }
    }
}

/// What the body of ``AdminDatabase/atomically(once:namespace:_:)`` did inside the writer.
private enum OnceOutcome<R: Sendable>: Sendable {
    case ran(R)
    case alreadyApplied
    case failed(any Error)
}
