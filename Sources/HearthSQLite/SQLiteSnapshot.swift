import Foundation
import GRDB

/// An online, consistent copy of a SQLite database that a server may be writing at the same time.
///
/// The copy is made with `VACUUM INTO`, which reads the database inside one read transaction: in WAL
/// mode the writer keeps committing while it runs, and the copy holds exactly the commits that were
/// done when it started. The file's bytes are never copied directly (a copy of a live file, or of the
/// file without its WAL, can be torn or stale).
public enum SQLiteSnapshot {
    /// Writes a consistent copy of the database at `source` to `target`, a new file (it must not exist).
    ///
    /// The copy is a standalone database (rollback journal, no WAL) that any SQLite opens;
    /// Hearth's stores switch it back to WAL when they open it. Waits up to `busyTimeout` seconds
    /// for a lock (only a checkpoint or a schema change takes one that blocks a reader).
    public static func copy(from source: String, to target: String, busyTimeout: Double = 30) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.label = "hearth-backup"
        let queue = try DatabaseQueue(path: source, configuration: config)
        defer { try? queue.close() }
        try queue.inDatabase { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [target])
        }
    }

    /// `PRAGMA quick_check` of the database file at `path`: nil when it is intact, else SQLite's first complaint.
    public static func problem(at path: String) throws -> String? {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        let answer = try queue.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
        return answer == "ok" ? nil : (answer ?? "no answer")
    }
}
