public import HearthStore
import PostgresNIO

/// One project's short links and click counters in a PostgreSQL database that several Hearth nodes
/// share (`hearth_links` and `hearth_link_counts`, rows scoped by `project`).
///
/// Every node buffers clicks and flushes them with ``addCounts(_:)``: one `INSERT … ON CONFLICT DO UPDATE
/// SET n = n + excluded.n`, which PostgreSQL applies atomically per row, so counts from several nodes add
/// up and none is lost. A link's insert relies on the primary key (suffix) and a unique index (long link,
/// option, inviter) rather than on isolation: when two nodes insert at once, the loser's row is skipped
/// and it reports the winner's link (`duplicate`) or a taken suffix.
///
/// ```swift
/// let links = PostgresLinkStore(server: server, project: "demo")
/// try await links.addCounts([LinkCounterKey(suffix: "AbCd", platform: .ios, event: .click, day: 19_700): 1])
/// ```
public final class PostgresLinkStore: LinkStore {
    /// The project whose rows this store reads and writes.
    public let project: String
    let server: PostgresServer

    /// The links of `project` on `server` (whose schema the server created when it connected).
    public init(server: PostgresServer, project: String) {
        self.server = server
        self.project = project
    }

    private static let columns = "suffix, prefix, long_link, option, inviter, created"

    /// A row of `hearth_links`; the inviter column holds "" for none (so the unique index sees it).
    private static func record(_ row: PostgresRow) throws -> LinkRecord? {
        let (suffix, prefix, longLink, option, inviter, created) = try row.decode((String, String, String, String, String, Int64).self)
        guard let option = LinkSuffixOption(rawValue: option) else { return nil }
        return LinkRecord(
            suffix: suffix, prefix: prefix, longLink: longLink, option: option, inviter: inviter.isEmpty ? nil : inviter, created: created)
    }

    /// The link with this suffix (exact, case-sensitive match).
    public func link(suffix: String) async throws -> LinkRecord? {
        try await server.run { [project] session in
            try session.query(
                "SELECT \(unescaped: Self.columns) FROM hearth_links WHERE project = \(project) AND suffix = \(suffix)"
            ).first.flatMap(Self.record)
        }
    }

    /// The link stored for this long link, option and inviter (a unique index holds one at most).
    public func link(longLink: String, option: LinkSuffixOption, inviter: String?) async throws -> LinkRecord? {
        try await server.run { [project] session in try Self.find(session, project, longLink, option, inviter) }
    }

    /// The unique index is on the long link's MD5 (a long link may be longer than a B-tree entry allows);
    /// the link itself is compared too.
    private static func find(
        _ session: PostgresSession, _ project: String, _ longLink: String, _ option: LinkSuffixOption, _ inviter: String?
    ) throws -> LinkRecord? {
        try session.query(
            """
            SELECT \(unescaped: columns) FROM hearth_links WHERE project = \(project) AND md5(long_link) = md5(\(longLink))
            AND long_link = \(longLink) AND option = \(option.rawValue) AND inviter = \(inviter ?? "")
            """
        ).first.flatMap(record)
    }

    /// Stores the link unless the same link exists (`.duplicate`, checked first) or the suffix is taken.
    public func insert(_ record: LinkRecord) async throws -> LinkInsertResult {
        try await server.run { [project] session in
            if let existing = try Self.find(session, project, record.longLink, record.option, record.inviter) { return .duplicate(existing) }
            let inserted = try session.execute(
                """
                INSERT INTO hearth_links(project, \(unescaped: Self.columns))
                VALUES (\(project), \(record.suffix), \(record.prefix), \(record.longLink), \(record.option.rawValue),
                \(record.inviter ?? ""), \(record.created))
                ON CONFLICT DO NOTHING
                """)
            if inserted > 0 { return .inserted }
            // Another node inserted first (each statement sees the latest commits): the same link, or another with this suffix.
            if let existing = try Self.find(session, project, record.longLink, record.option, record.inviter) { return .duplicate(existing) }
            return .suffixTaken
        }
    }

    /// Links in suffix order (UTF-8 bytes: the column's "C" collation) after `suffix`, at most `limit`.
    public func links(after suffix: String?, limit: Int) async throws -> [LinkRecord] {
        try await server.run { [project] session in
            try session.query(
                """
                SELECT \(unescaped: Self.columns) FROM hearth_links WHERE project = \(project) AND suffix > \(suffix ?? "")
                ORDER BY suffix LIMIT \(max(0, limit))
                """
            ).compactMap(Self.record)
        }
    }

    /// Adds every increment to its counter row (created when absent) in one statement: atomic per row and
    /// all-or-nothing for the batch. Rows are written in key order, so two nodes' batches lock them in the
    /// same order and cannot deadlock.
    public func addCounts(_ increments: [LinkCounterKey: Int64]) async throws {
        guard !increments.isEmpty else { return }
        let sorted = increments.sorted { a, b in
            let (x, y) = (a.key, b.key)
            if x.suffix != y.suffix { return x.suffix.utf8Precedes(y.suffix) }
            if x.day != y.day { return x.day < y.day }
            if x.platform != y.platform { return x.platform.rawValue < y.platform.rawValue }
            return x.event.rawValue < y.event.rawValue
        }
        let suffixes = sorted.map(\.key.suffix)
        let days = sorted.map(\.key.day)
        let platforms = sorted.map(\.key.platform.rawValue)
        let events = sorted.map(\.key.event.rawValue)
        let counts = sorted.map(\.value)
        // In a transaction only for its retry: a deadlock the ordering did not prevent runs the batch again.
        _ = try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                try session.execute(
                    """
                    INSERT INTO hearth_link_counts(project, suffix, day, platform, event, n)
                    SELECT \(project), suffix, day, platform, event, n
                    FROM unnest(\(suffixes)::text[], \(days)::bigint[], \(platforms)::text[], \(events)::text[], \(counts)::bigint[])
                    WITH ORDINALITY AS c(suffix, day, platform, event, n, i)
                    ORDER BY i
                    ON CONFLICT (project, suffix, day, platform, event) DO UPDATE SET n = hearth_link_counts.n + excluded.n
                    """)
            }
        }
    }

    /// Non-zero counters of `suffix` from day `fromDay` on, by day, then platform and event names.
    public func counts(suffix: String, fromDay: Int64) async throws -> [LinkCount] {
        try await server.run { [project] session in
            try session.query(
                """
                SELECT day, platform, event, n FROM hearth_link_counts
                WHERE project = \(project) AND suffix = \(suffix) AND day >= \(fromDay) AND n != 0 ORDER BY day, platform, event
                """
            ).compactMap { row in
                let (day, platform, event, n) = try row.decode((Int64, String, String, Int64).self)
                guard let platform = LinkPlatform(rawValue: platform), let event = LinkEvent(rawValue: event) else { return nil }
                return LinkCount(key: LinkCounterKey(suffix: suffix, platform: platform, event: event, day: day), count: n)
            }
        }
    }

    /// Removes the link and its counters in one transaction; false when no link has this suffix.
    public func delete(suffix: String) async throws -> Bool {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                let removed = try session.execute("DELETE FROM hearth_links WHERE project = \(project) AND suffix = \(suffix)")
                try session.execute("DELETE FROM hearth_link_counts WHERE project = \(project) AND suffix = \(suffix)")
                return removed > 0
            }
        }
    }

    /// Nothing to release: the connections belong to the server, which its owner shuts down.
    public func close() async throws {}
}
