import Foundation
import GRDB
public import HearthStore

/// Short links and their click counters in their own SQLite file (`<data>/<project>.links.sqlite`),
/// never inside the JSON tree.
///
/// Counters arrive in batches (``addCounts(_:)``), one transaction per batch, so a busy link costs
/// one commit a second, not one per redirect.
public final class SQLiteLinkStore: LinkStore {
    private let queue: DatabaseQueue

    /// - Parameters:
    ///   - path: the links file, created with its tables when absent.
    ///   - durable: sync every commit (survives power loss); otherwise commits survive a
    ///     crash of the process but not of the machine.
    public init(path: String, durable: Bool = true) throws {
        var config = Configuration()
        // The offline `hearth links` commands may write while the server runs.
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS links(
                    suffix TEXT PRIMARY KEY NOT NULL, prefix TEXT NOT NULL, long_link TEXT NOT NULL, option TEXT NOT NULL,
                    inviter TEXT NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
                CREATE UNIQUE INDEX IF NOT EXISTS links_by_long_link ON links(long_link, option, inviter);
                CREATE TABLE IF NOT EXISTS link_counts(
                    suffix TEXT NOT NULL, day INTEGER NOT NULL, platform TEXT NOT NULL, event TEXT NOT NULL,
                    count INTEGER NOT NULL, PRIMARY KEY(suffix, day, platform, event)) WITHOUT ROWID;
                """)
        }
    }

    private static let columns = "suffix, prefix, long_link, option, inviter, created"

    /// A row of `links`; the inviter column holds "" for none (so the unique index sees it).
    private static func record(_ row: Row) -> LinkRecord? {
        guard let option = LinkSuffixOption(rawValue: row["option"]) else { return nil }
        let inviter: String = row["inviter"]
        return LinkRecord(
            suffix: row["suffix"], prefix: row["prefix"], longLink: row["long_link"], option: option,
            inviter: inviter.isEmpty ? nil : inviter, created: row["created"])
    }

    /// The link with this suffix (exact, case-sensitive match).
    public func link(suffix: String) async throws -> LinkRecord? {
        try await queue.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM links WHERE suffix = ?", arguments: [suffix]).flatMap(Self.record)
        }
    }

    /// The link stored for this long link, option and inviter (a unique index holds one at most).
    public func link(longLink: String, option: LinkSuffixOption, inviter: String?) async throws -> LinkRecord? {
        try await queue.read { db in try Self.find(db, longLink, option, inviter) }
    }

    private static func find(_ db: GRDB.Database, _ longLink: String, _ option: LinkSuffixOption, _ inviter: String?) throws -> LinkRecord? {
        try Row.fetchOne(
            db, sql: "SELECT \(columns) FROM links WHERE long_link = ? AND option = ? AND inviter = ?",
            arguments: [longLink, option.rawValue, inviter ?? ""]
        ).flatMap(record)
    }

    /// Stores the link in one transaction unless the same link exists (`.duplicate`, checked first) or the suffix is taken.
    public func insert(_ record: LinkRecord) async throws -> LinkInsertResult {
        try await SQLiteFull.mapping { try await queue.write { db in
            if let existing = try Self.find(db, record.longLink, record.option, record.inviter) { return .duplicate(existing) }
            let taken = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM links WHERE suffix = ?)", arguments: [record.suffix]) ?? false
            if taken { return .suffixTaken }
            try db.execute(
                sql: "INSERT INTO links(\(Self.columns)) VALUES(?, ?, ?, ?, ?, ?)",
                arguments: [record.suffix, record.prefix, record.longLink, record.option.rawValue, record.inviter ?? "", record.created])
            return .inserted
        } }
    }

    /// Links in suffix order (SQLite's BINARY collation: UTF-8 bytes) after `suffix`, at most `limit`.
    public func links(after suffix: String?, limit: Int) async throws -> [LinkRecord] {
        try await queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.columns) FROM links WHERE suffix > ? ORDER BY suffix LIMIT ?",
                arguments: [suffix ?? "", max(0, limit)]
            ).compactMap(Self.record)
        }
    }

    /// Adds every increment to its counter row (created at 0 when absent), all in one transaction.
    public func addCounts(_ increments: [LinkCounterKey: Int64]) async throws {
        guard !increments.isEmpty else { return }
        try await SQLiteFull.mapping { try await queue.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO link_counts(suffix, day, platform, event, count) VALUES(?, ?, ?, ?, ?)
                ON CONFLICT(suffix, day, platform, event) DO UPDATE SET count = count + excluded.count
                """)
            for (key, n) in increments {
                try statement.execute(arguments: [key.suffix, key.day, key.platform.rawValue, key.event.rawValue, n])
            }
        } }
    }

    /// Non-zero counters of `suffix` from day `fromDay` on, by day, then platform and event names.
    public func counts(suffix: String, fromDay: Int64) async throws -> [LinkCount] {
        try await queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT day, platform, event, count FROM link_counts WHERE suffix = ? AND day >= ? AND count != 0 ORDER BY day, platform, event",
                arguments: [suffix, fromDay]
            ).compactMap { row in
                guard let platform = LinkPlatform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else { return nil }
                return LinkCount(key: LinkCounterKey(suffix: suffix, platform: platform, event: event, day: row["day"]), count: row["count"])
            }
        }
    }

    /// Removes the link and its counters in one transaction; false when no link has this suffix.
    public func delete(suffix: String) async throws -> Bool {
        try await SQLiteFull.mapping { try await queue.write { db in
            try db.execute(sql: "DELETE FROM links WHERE suffix = ?", arguments: [suffix])
            let removed = db.changesCount > 0
            try db.execute(sql: "DELETE FROM link_counts WHERE suffix = ?", arguments: [suffix])
            return removed
        } }
    }

    /// Closes the file; later calls fail.
    public func close() async throws { try queue.close() }
}
