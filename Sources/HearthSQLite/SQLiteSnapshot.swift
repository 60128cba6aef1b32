import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An online, consistent copy of a SQLite database that a server may be writing at the same time.
///
/// The copy is made with SQLite's online backup API, a step of 256 KiB of pages at a time, all
/// inside one read transaction on the source: in WAL mode the server keeps committing while it runs,
/// and the copy holds exactly the commits that were done when the transaction began (commits made
/// between steps neither show up in it nor restart it). Between steps the caller may pause, which is
/// how a backup limits its rate. The file's bytes are never copied directly (a copy of a live file,
/// or of the file without its WAL, can be torn or stale).
public enum SQLiteSnapshot {
    /// Bytes of pages copied per step.
    static let stepBytes = 256 << 10

    /// Writes a consistent copy of the database at `source` to `target`, a new file (it must not exist).
    ///
    /// The copy is a standalone database (rollback journal, no WAL) that any SQLite opens;
    /// Hearth's stores switch it back to WAL when they open it. Waits up to `busyTimeout` seconds
    /// for a lock (only a checkpoint or a schema change takes one that blocks a reader). After each
    /// step `afterStep` gets the bytes that step copied; what it throws ends the copy.
    ///
    /// With `syncEvery`, the copy's pages are synced to disk each time that many more bytes were copied: a large copy
    /// then never leaves a gigabyte of dirty pages for one final sync, whose burst of disk writes stalled the server's
    /// own commits for up to half a second (docs/benchmarks.md, "Writes during a backup").
    public static func copy(
        from source: String, to target: String, busyTimeout: Double = 30, syncEvery: Int? = nil,
        afterStep: ((_ bytes: Int) throws -> Void)? = nil
    ) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.label = "hearth-backup"
        let queue = try DatabaseQueue(path: source, configuration: config)
        defer { try? queue.close() }
        var targetConfig = Configuration()
        targetConfig.label = "hearth-backup-copy"
        // A copy that fails is deleted and a finished one is synced by the caller: no journal, no sync per step.
        targetConfig.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF")
            try db.execute(sql: "PRAGMA synchronous = OFF")
        }
        let copy = try DatabaseQueue(path: target, configuration: targetConfig)
        defer { try? copy.close() }
        try queue.inDatabase { db in
            try db.beginTransaction(.deferred)
            defer { try? db.rollback() }
            // The first read fixes the snapshot every step copies from.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema")
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            var copied = 0
            var unsynced = 0
            // Syncing through a descriptor of our own flushes the file's pages whoever wrote them.
            let descriptor = syncEvery == nil ? -1 : open(target, O_RDONLY | O_CLOEXEC)
            defer { if descriptor >= 0 { close(descriptor) } }
            try copy.writeWithoutTransaction { target in
                try db.backup(to: target, pagesPerStep: CInt(max(1, stepBytes / pageSize))) { progress in
                    let pages = progress.completedPageCount - copied
                    copied = progress.completedPageCount
                    unsynced += pages * pageSize
                    if let syncEvery, descriptor >= 0, unsynced >= syncEvery {
                        _ = fdatasync(descriptor)
                        unsynced = 0
                    }
                    try afterStep?(pages * pageSize)
                }
            }
        }
        // The pages carry the source's WAL mode in their header; a copy left that way opens read-only elsewhere.
        try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
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
