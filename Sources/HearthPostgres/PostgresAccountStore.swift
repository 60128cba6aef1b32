public import HearthStore

/// One project's accounts, provider identities, refresh tokens, one-time codes and auth outbox in a
/// PostgreSQL database that several Hearth nodes share (the `hearth_auth_…` tables, rows scoped by
/// `project`).
///
/// A transaction runs at `SERIALIZABLE`: the auth service checks that an email, a phone number or an
/// identity is free and then saves, and two nodes doing that at once must not both succeed. The one
/// whose read went stale fails with SQLSTATE 40001 and its body runs again on fresh data, where the
/// check throws the ``AccountConflict`` SQLite's store would. A unique index that refuses a save
/// (another node committed the same email between the check and the insert) is treated the same way.
///
/// ```swift
/// let server = try await PostgresServer(location: PostgresLocation(url: url), logger: logger)
/// let accounts = PostgresAccountStore(server: server, project: "demo")
/// ```
public final class PostgresAccountStore: AccountStore {
    /// The project whose rows this store reads and writes.
    public let project: String
    let server: PostgresServer

    /// The accounts of `project` on `server` (whose schema the server created when it connected).
    public init(server: PostgresServer, project: String) {
        self.server = server
        self.project = project
    }

    /// Runs `body` in one `SERIALIZABLE` transaction, committed before this returns; a throw rolls it back.
    /// The body may run more than once (after a serialization failure), each time in a new transaction.
    public func transaction<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try await server.run { [project] session in
            try session.transaction(.serializable, retries: PostgresServer.serializableRetries) {
                try body(PostgresAccountTransaction(session: session, project: project))
            }
        }
    }

    /// Runs `body` on one snapshot in a read-only transaction; writes in it fail.
    public func read<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try await server.run { [project] session in
            try session.transaction(.snapshot) {
                try body(PostgresAccountTransaction(session: session, project: project))
            }
        }
    }
}

extension PostgresServer {
    /// How often a `SERIALIZABLE` store transaction runs again after losing a race. Each round of a race has
    /// a winner, so as many retries as transactions can run at once on two busy nodes lets every one finish
    /// even when all of them write one row (a hot object's metadata).
    static let serializableRetries = 32
}

extension PostgresAccountStore: OutboxLeasing {
    /// Leases the project's due auth events (see ``PostgresOutboxHost``).
    public func leaseDueEvents(now: Int64, limit: Int, lease: Int64) async throws -> [OutboxEvent] {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                try PostgresAccountTransaction(session: session, project: project).leaseDueEvents(now: now, limit: limit, lease: lease)
            }
        }
    }
}
