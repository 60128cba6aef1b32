public import HearthStore
import PostgresNIO

/// One namespace's tree in a PostgreSQL database that several Hearth nodes share.
///
/// Reads run in a `REPEATABLE READ READ ONLY` transaction (one snapshot for every statement of the
/// closure). Writes run in `READ COMMITTED` after locking the namespace's counter row
/// (``StoreTransaction/lockSequence()``), so the writers of one namespace take turns across every
/// node, as SQLite's single writer does on one, and each reads the latest commit: an `if-match`, a
/// transaction or an `increment` on one node never overwrites another node's commit unseen.
public final class PostgresStore: DatabaseStore {
    /// The namespace this store holds.
    public let namespace: String
    let server: PostgresServer
    let feed: PostgresChangeFeed?

    init(namespace: String, server: PostgresServer, feed: PostgresChangeFeed?) {
        self.namespace = namespace
        self.server = server
        self.feed = feed
    }

    /// Runs `body` on one snapshot of the namespace.
    public func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R {
        try await server.run { [namespace] session in
            try session.transaction(.snapshot) {
                try body(PostgresTransaction(session: session, namespace: namespace, writable: false))
            }
        }
    }

    /// Runs `body` in one transaction, committed before this returns (PostgreSQL's `synchronous_commit`
    /// decides how durable that is; its default waits for the WAL flush).
    public func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R {
        try await server.run { [namespace] session in
            try session.transaction(.readCommitted) {
                try body(PostgresTransaction(session: session, namespace: namespace, writable: true))
            }
        }
    }

    /// Builds the declared indexes that have no rows yet (declared before schema version 4), in one
    /// write transaction: the namespace's writers wait meanwhile, so no write is missed.
    func buildDeclaredIndexes() async throws {
        let built = try await server.run { [namespace] session in
            try session.transaction(.readCommitted) {
                try PostgresTransaction(session: session, namespace: namespace, writable: true).buildDeclaredIndexes()
            }
        }
        if built > 0 {
            server.logger.info("built indexes declared before this version", metadata: ["hearth.ns": "\(namespace)", "hearth.indexes": "\(built)"])
        }
    }

    /// Stops delivering other nodes' changes to this namespace's listeners; the rows stay.
    public func close() async throws {
        feed?.stopFollowing(namespace)
    }

    /// `reload` runs after another node stored a setting of this namespace, and after the feed reconnected.
    public func followSettings(_ reload: @escaping @Sendable () async -> Void) {
        feed?.followSettings(namespace, reload)
    }

    /// The observer to give this namespace's `Database`: it delivers the changes committed here and
    /// on every other node to `hub` once each, in sequence order (see ``PostgresChangeFeed``).
    /// Without a feed it is `hub` itself.
    public func observer(delivering hub: any ChangeObserver) async throws -> any ChangeObserver {
        guard let feed else { return hub }
        let sequence = try await snapshot { try $0.sequence() }
        return feed.follow(namespace, from: sequence, delivering: hub)
    }
}

/// Opens the namespaces of one PostgreSQL database: each is a row of `hearth_namespaces` and its
/// rows in the shared tables.
///
/// ```swift
/// let server = try await PostgresServer(location: PostgresLocation(url: url), logger: logger)
/// let factory = PostgresStoreFactory(server: server, feed: PostgresChangeFeed(server: server, logger: logger))
/// ```
public struct PostgresStoreFactory: StoreFactory {
    /// The server every store of this factory uses.
    public let server: PostgresServer
    /// Delivers other nodes' commits to this node's listeners; nil for a single node (tests, tools).
    public let feed: PostgresChangeFeed?

    /// A factory for the namespaces of `server`'s database.
    public init(server: PostgresServer, feed: PostgresChangeFeed? = nil) {
        self.server = server
        self.feed = feed
    }

    /// Opens `namespace`, creating its counter row when absent, and builds the indexes it declared
    /// before this version kept index rows.
    public func open(namespace: String) async throws -> any DatabaseStore {
        let unbuilt = try await server.run { session in
            try session.execute("INSERT INTO hearth_namespaces(ns) VALUES (\(namespace)) ON CONFLICT (ns) DO NOTHING")
            return try !session.query("SELECT 1 FROM hearth_index_specs WHERE ns = \(namespace) AND NOT built LIMIT 1").isEmpty
        }
        let store = PostgresStore(namespace: namespace, server: server, feed: feed)
        if unbuilt { try await store.buildDeclaredIndexes() }
        return store
    }

    /// The namespaces of the database (a blocking query: the registry calls this rarely).
    public func existingNamespaces() throws -> [String] {
        try server.runBlocking { session in
            try session.query("SELECT ns FROM hearth_namespaces ORDER BY ns").map { try $0.decode(String.self) }
        }
    }

    /// The bytes of each namespace's tree rows and index rows (`pg_column_size` of their columns: the data, without
    /// PostgreSQL's page and index overhead). Scans both tables: the overview caches the answer.
    public func namespaceSizes() async throws -> [String: Int64] {
        try await server.run { session in
            var sizes: [String: Int64] = [:]
            for name in try session.query("SELECT ns FROM hearth_namespaces").map({ try $0.decode(String.self) }) { sizes[name] = 0 }
            let rows = try session.query(
                """
                SELECT ns, sum(n)::bigint FROM (
                    SELECT ns, pg_column_size(p) + coalesce(pg_column_size(v), 0) + coalesce(pg_column_size(pr), 0) AS n FROM hearth_tree
                    UNION ALL
                    SELECT ns, pg_column_size(parent) + pg_column_size(v) + pg_column_size(k) FROM hearth_index_rows
                ) AS r GROUP BY ns
                """)
            for row in rows {
                let (name, bytes) = try row.decode((String, Int64?).self)
                sizes[name] = bytes ?? 0
            }
            return sizes
        }
    }

    /// Removes every row of `namespace`: its tree, settings, change log, outbox and counter.
    public func delete(namespace: String) async throws {
        try await server.run { session in
            try session.transaction(.readCommitted) {
                for table in ["hearth_tree", "hearth_settings", "hearth_index_specs", "hearth_index_rows", "hearth_changes"] {
                    try session.execute("DELETE FROM \(unescaped: table) WHERE ns = \(namespace)")
                }
                try session.execute("DELETE FROM hearth_outbox WHERE box = \(namespace)")
                try session.execute("DELETE FROM hearth_claimed_keys WHERE box = \(namespace)")
                try session.execute("DELETE FROM hearth_namespaces WHERE ns = \(namespace)")
            }
        }
    }
}

extension PostgresStoreFactory {
    /// With a feed, the namespace's commits from every node reach `hub` in order (see ``PostgresStore/observer(delivering:)``).
    public func observer(for store: any DatabaseStore, delivering hub: any ChangeObserver) async throws -> any ChangeObserver {
        guard let store = store as? PostgresStore else { return hub }
        return try await store.observer(delivering: hub)
    }
}

extension PostgresStore: OutboxLeasing {
    /// Leases the namespace's due trigger events (see ``PostgresOutboxHost``).
    public func leaseDueEvents(now: Int64, limit: Int, lease: Int64) async throws -> [OutboxEvent] {
        try await server.run { [namespace] session in
            try session.transaction(.readCommitted) {
                try PostgresTransaction(session: session, namespace: namespace, writable: true).leaseDueEvents(now: now, limit: limit, lease: lease)
            }
        }
    }
}
