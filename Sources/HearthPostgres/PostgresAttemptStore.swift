public import HearthStore
import PostgresNIO
import Synchronization

/// One project's attempt counts (password sign-ins, messages per recipient) in a PostgreSQL database that several
/// Hearth nodes share (`hearth_attempts`, rows scoped by `project`), so a limit holds for the cluster, not per node.
///
/// Each key is one row holding the times of its attempts. ``reserve(_:under:now:)`` is one
/// `INSERT … ON CONFLICT DO UPDATE … WHERE count < limit`: PostgreSQL locks the key's row, evaluates the count on
/// its latest version and appends in the same step, so racing nodes take turns per key and never all pass before
/// one is counted. Rows carry the time they expire; each node deletes the project's expired ones at most once per
/// ``purgeInterval``, so the table holds only keys with live attempts (and those that expired since).
///
/// The table is `UNLOGGED`: counts are short-lived, as a node's memory was. A crash of PostgreSQL forgets them, as
/// a restart of a single node does, and a sign-in attempt costs no WAL flush.
///
/// ```swift
/// let attempts = PostgresAttemptStore(server: server, project: "demo")
/// let auth = AuthService(projectID: "demo", store: accounts, keys: keys, attempts: attempts)
/// ```
public final class PostgresAttemptStore: AttemptStore {
    /// The project whose rows this store reads and writes.
    public let project: String
    let server: PostgresServer
    /// How often (milliseconds of the callers' clock) this store deletes expired rows.
    public let purgeInterval: Int64
    /// When this store last deleted expired rows (`Int64.min`: not yet).
    private let lastPurge = Atomic<Int64>(.min)

    /// The attempts of `project` on `server` (whose schema the server created when it connected), deleting the
    /// project's expired rows at most every `purgeInterval` milliseconds (0: at every write).
    public init(server: PostgresServer, project: String, purgeInterval: Int64 = 60_000) {
        self.server = server
        self.project = project
        self.purgeInterval = max(0, purgeInterval)
    }

    /// Takes an attempt when the key's window has room, in one statement (see the type's overview).
    ///
    /// Not in a transaction: the statement is atomic on its own, and a connection that breaks after PostgreSQL ran
    /// it (the statement runs once more on a new connection) can only count one attempt twice, never lose one.
    public func reserve(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Bool {
        guard limit.limit > 0 else { return false }
        let purge = purgeDue(now)
        return try await server.run { [project] session in
            if purge { try Self.purge(session, project: project, now: now) }
            return !(try session.query(
                """
                INSERT INTO hearth_attempts AS a(project, scope, k, times, expires)
                VALUES (\(project), \(limit.scope), \(key), ARRAY[\(now)]::bigint[], \(now + limit.window))
                ON CONFLICT (project, scope, k) DO UPDATE
                SET times = array_append(ARRAY(SELECT t FROM unnest(a.times) AS t WHERE t > \(now - limit.window)), \(now)),
                    expires = greatest(a.expires, excluded.expires)
                WHERE (SELECT count(*) FROM unnest(a.times) AS t WHERE t > \(now - limit.window)) < \(Int64(limit.limit))
                RETURNING 1
                """
            ).isEmpty)
        }
    }

    /// Removes one attempt at `time` from the key's row (the row itself goes when it expires).
    public func release(_ key: String, under limit: AttemptLimit, at time: Int64) async throws {
        _ = try await server.run { [project] session in
            try session.execute(
                """
                UPDATE hearth_attempts SET times = times[:array_position(times, \(time)) - 1] || times[array_position(times, \(time)) + 1:]
                WHERE project = \(project) AND scope = \(limit.scope) AND k = \(key) AND array_position(times, \(time)) IS NOT NULL
                """)
        }
    }

    /// Deletes the key's row.
    public func reset(_ key: String, under limit: AttemptLimit) async throws {
        _ = try await server.run { [project] session in
            try session.execute("DELETE FROM hearth_attempts WHERE project = \(project) AND scope = \(limit.scope) AND k = \(key)")
        }
    }

    /// Counts the key's attempts newer than `now - window`.
    public func count(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Int {
        try await server.run { [project] session in
            let rows = try session.query(
                """
                SELECT count(*) FROM hearth_attempts AS a, unnest(a.times) AS t
                WHERE a.project = \(project) AND a.scope = \(limit.scope) AND a.k = \(key) AND t > \(now - limit.window)
                """)
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    /// Appends an attempt to the key's row (created when absent), dropping its expired ones.
    public func record(_ key: String, under limit: AttemptLimit, now: Int64) async throws {
        let purge = purgeDue(now)
        _ = try await server.run { [project] session in
            if purge { try Self.purge(session, project: project, now: now) }
            return try session.execute(
                """
                INSERT INTO hearth_attempts AS a(project, scope, k, times, expires)
                VALUES (\(project), \(limit.scope), \(key), ARRAY[\(now)]::bigint[], \(now + limit.window))
                ON CONFLICT (project, scope, k) DO UPDATE
                SET times = array_append(ARRAY(SELECT t FROM unnest(a.times) AS t WHERE t > \(now - limit.window)), \(now)),
                    expires = greatest(a.expires, excluded.expires)
                """)
        }
    }

    /// How many rows (keys, live or expired and not yet deleted) the project has.
    public func storedKeyCount() async throws -> Int {
        try await server.run { [project] session in
            Int(try session.query("SELECT count(*) FROM hearth_attempts WHERE project = \(project)").first?.decode(Int64.self) ?? 0)
        }
    }

    /// True for one caller once `purgeInterval` passed since the last purge this store made.
    private func purgeDue(_ now: Int64) -> Bool {
        var last = lastPurge.load(ordering: .relaxed)
        while last == .min || now - last >= purgeInterval {
            let (exchanged, original) = lastPurge.compareExchange(expected: last, desired: now, ordering: .relaxed)
            if exchanged { return true }
            last = original
        }
        return false
    }

    /// Deletes the project's expired rows. Only its own: another project's nodes read another clock (in tests, one
    /// that a test moves), by which those rows may still count.
    private static func purge(_ session: PostgresSession, project: String, now: Int64) throws {
        try session.execute("DELETE FROM hearth_attempts WHERE project = \(project) AND expires <= \(now)")
    }
}
