public import HearthStore

/// One project's buckets, object records, resumable-upload sessions and storage outbox in a PostgreSQL
/// database that several Hearth nodes share (the `hearth_storage_…` tables, rows scoped by `project`).
///
/// Names use the "C" collation, so objects list in UTF-8 byte order as in SQLite and Cloud Storage. A
/// transaction runs at `SERIALIZABLE`: a precondition (`ifGenerationMatch`) checked on one node and the
/// write it guards cannot interleave with another node's; the transaction that lost the race runs its
/// body again on fresh data.
///
/// ```swift
/// let catalog = PostgresObjectCatalog(server: server, project: "demo")
/// let record = try await catalog.read { tx in try tx.object(bucket: "b", name: "a.txt") }
/// ```
public final class PostgresObjectCatalog: ObjectCatalog {
    /// The project whose rows this catalog reads and writes.
    public let project: String
    let server: PostgresServer

    /// The catalog of `project` on `server` (whose schema the server created when it connected).
    public init(server: PostgresServer, project: String) {
        self.server = server
        self.project = project
    }

    /// Runs `body` in one `SERIALIZABLE` transaction, committed before this returns; the body may run again
    /// after a serialization failure, each time in a new transaction.
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try await server.run { [project] session in
            try session.transaction(.serializable, retries: PostgresServer.serializableRetries) {
                try body(PostgresObjectTransaction(session: session, project: project))
            }
        }
    }

    /// Runs `body` on one snapshot in a read-only transaction; writes in it fail.
    public func read<R: Sendable>(_ body: @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try await server.run { [project] session in
            try session.transaction(.snapshot) {
                try body(PostgresObjectTransaction(session: session, project: project))
            }
        }
    }
}

extension PostgresObjectCatalog: OutboxLeasing {
    /// Leases the project's due storage events (see ``PostgresOutboxHost``).
    public func leaseDueEvents(now: Int64, limit: Int, lease: Int64) async throws -> [OutboxEvent] {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                try PostgresObjectTransaction(session: session, project: project).leaseDueEvents(now: now, limit: limit, lease: lease)
            }
        }
    }
}
