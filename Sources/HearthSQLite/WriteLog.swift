import Foundation
import GRDB
import HearthCore

/// The write log of a namespace database, for point-in-time recovery.
///
/// A store opened with `writeLog: true` records every committed change in the table
/// `write_log(seq, millis, path, kind, value)` inside the write's own transaction: the change's
/// sequence number, the commit's wall-clock time (milliseconds since 1970), the location and the
/// new value(s). A restore takes a snapshot (a backup) whose sequence is `S` and replays the rows
/// after `S`, in sequence order, up to a chosen time.
///
/// ```swift
/// let info = try WriteLog.info(ofFile: "backup-copy.sqlite")
/// let done = try WriteLog.replay(from: "later-copy.sqlite", into: "restored/demo.sqlite", after: info!.sequence, until: millis)
/// ```
public enum WriteLog {
    /// Why the log cannot be read or replayed; `description` is shown to the user.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong, in words.
        public var description: String
    }

    /// The table, created when a store keeps a write log.
    static let schema = """
        CREATE TABLE IF NOT EXISTS write_log(
            seq INTEGER PRIMARY KEY, millis INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, value BLOB NOT NULL)
        """

    /// What a database file holds: its committed sequence and the extent of its write log.
    public struct Info: Sendable, Equatable {
        /// The sequence number of the last committed change (0 for a database never written).
        public var sequence: UInt64
        /// The commit time of change `sequence`, when the log holds it.
        public var sequenceMillis: Int64?
        /// The first sequence number in the log (after the `after` of the read), nil when it is empty or absent.
        public var first: UInt64?
        /// The last sequence number in the log.
        public var last: UInt64?
        /// How many rows the log holds.
        public var count: Int64
        /// The commit time of the newest row.
        public var lastMillis: Int64?
        /// Whether the file has a `write_log` table at all.
        public var hasLog: Bool
    }

    /// Opens `path` read-only (a standalone copy: a backup's blob, or a snapshot of a live file).
    static func readOnly(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.label = "hearth-write-log"
        return try DatabaseQueue(path: path, configuration: config)
    }

    /// The sequence and log extent of the namespace database at `path` (a standalone copy, opened
    /// read-only); nil when the file is not a namespace database (no `meta` table).
    /// With `after`, the log extent counts only the rows after that sequence.
    public static func info(ofFile path: String, after base: UInt64 = 0) throws -> Info? {
        let queue = try readOnly(path)
        defer { try? queue.close() }
        return try queue.read { db in try info(db, after: base) }
    }

    /// The ``Info`` of a database a server may be writing, read in one read transaction (a WAL
    /// snapshot: the writer is not held up); nil when the file is not a namespace database.
    public static func info(ofLiveFile path: String, after base: UInt64 = 0) throws -> Info? {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "hearth-write-log"
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in try info(db, after: base) }
    }

    /// The ``Info`` of an open database.
    static func info(_ db: GRDB.Database, after base: UInt64 = 0) throws -> Info? {
        guard try db.tableExists("meta") else { return nil }
        let sequence = UInt64(try Int64.fetchOne(db, sql: "SELECT v FROM meta WHERE k = 'sequence'") ?? 0)
        guard try db.tableExists("write_log") else {
            return Info(sequence: sequence, sequenceMillis: nil, first: nil, last: nil, count: 0, lastMillis: nil, hasLog: false)
        }
        let row = try Row.fetchOne(db, sql: "SELECT MIN(seq), MAX(seq), COUNT(*) FROM write_log WHERE seq > ?", arguments: [Int64(base)])
        let first: Int64? = row?[0]
        let last: Int64? = row?[1]
        let count: Int64 = row?[2] ?? 0
        let seqMillis = try Int64.fetchOne(db, sql: "SELECT millis FROM write_log WHERE seq = ?", arguments: [Int64(sequence)])
        let lastMillis = try Int64.fetchOne(db, sql: "SELECT millis FROM write_log ORDER BY seq DESC LIMIT 1")
        return Info(
            sequence: sequence, sequenceMillis: seqMillis, first: first.map(UInt64.init), last: last.map(UInt64.init),
            count: count, lastMillis: lastMillis, hasLog: true)
    }

    /// Whether `info` (read with `after: base`) holds every change after `base` up to its own sequence:
    /// `seq` is the primary key, so a range whose ends and row count match has no hole.
    public static func isComplete(_ info: Info, after base: UInt64) -> Bool {
        if info.sequence <= base { return true }
        guard info.hasLog, info.first == base + 1, info.last == info.sequence else { return false }
        return info.count == Int64(info.sequence - base)
    }

    /// What ``replay(from:into:after:until:)`` did.
    public struct Replayed: Sendable, Equatable {
        /// How many changes were applied.
        public var changes: Int
        /// The target's sequence afterwards.
        public var sequence: UInt64
        /// The commit time of the last change applied, nil when none was.
        public var lastMillis: Int64?
    }

    /// Applies to the database at `target` the changes that the log of `source` holds after sequence
    /// `base`, in sequence order, stopping before the first one committed after `until` (milliseconds
    /// since 1970). The caller has checked with ``isComplete(_:after:)`` that the source's log has no gap
    /// after `base`, and `target`'s sequence is `base`. Each applied row is also written to the target's
    /// own write log, so the restored database's log stays continuous. Applied in transactions of
    /// `batch` changes.
    public static func replay(from source: String, into target: String, after base: UInt64, until: Int64, batch: Int = 500) throws -> Replayed {
        let reader = try readOnly(source)
        defer { try? reader.close() }
        let writer = try DatabaseQueue(path: target)
        defer { try? writer.close() }
        let current = try writer.read { db in try info(db)?.sequence ?? 0 }
        guard current == base else {
            throw Failure(description: "\(target) is at sequence \(current), not \(base): cannot replay onto it")
        }
        try writer.write { db in
            try db.execute(sql: schema)
            try db.execute(sql: "DELETE FROM write_log WHERE seq > ?", arguments: [Int64(base)])
        }
        var done = Replayed(changes: 0, sequence: base, lastMillis: nil)
        var finished = false
        while !finished {
            let rows = try reader.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT seq, millis, path, kind, value FROM write_log WHERE seq > ? ORDER BY seq LIMIT ?",
                    arguments: [Int64(done.sequence), batch])
            }
            if rows.count < batch { finished = true }
            var applied: [(seq: UInt64, millis: Int64, path: String, kind: String, value: Data)] = []
            for row in rows {
                let seq = UInt64(row[0] as Int64)
                let millis: Int64 = row[1]
                if millis > until {
                    finished = true
                    break
                }
                guard seq == done.sequence + UInt64(applied.count) + 1 else {
                    throw Failure(description: "the write log of \(source) has a gap before sequence \(seq)")
                }
                applied.append((seq, millis, row[2], row[3], row[4]))
            }
            guard let lastRow = applied.last else { break }
            try writer.write { db in
                let tx = SQLiteTransaction(db)
                let insert = try db.cachedStatement(sql: "INSERT INTO write_log(seq, millis, path, kind, value) VALUES(?, ?, ?, ?, ?)")
                for row in applied {
                    let change = try decode(sequence: row.seq, path: row.path, kind: row.kind, value: [UInt8](row.value))
                    try apply(change, to: tx)
                    try insert.execute(arguments: [Int64(row.seq), row.millis, row.path, row.kind, row.value])
                }
                try tx.setSequence(lastRow.seq)
            }
            done.changes += applied.count
            done.sequence = lastRow.seq
            done.lastMillis = lastRow.millis
        }
        return done
    }

    /// Deletes the log rows with sequence at most `upTo` from the live database at `path` (a server
    /// may be writing it), `batch` rows per short transaction so writers are not held up; returns
    /// how many rows went. A file without a log is left alone.
    public static func prune(file path: String, upTo: UInt64, batch: Int = 1000, busyTimeout: Double = 10) throws -> Int {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.label = "hearth-write-log-prune"
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        guard try queue.read({ db in try db.tableExists("write_log") }) else { return 0 }
        var removed = 0
        while true {
            let n = try queue.write { db -> Int in
                try db.execute(
                    sql: "DELETE FROM write_log WHERE seq IN (SELECT seq FROM write_log WHERE seq <= ? ORDER BY seq LIMIT ?)",
                    arguments: [Int64(upTo), batch])
                return db.changesCount
            }
            removed += n
            if n < batch { return removed }
        }
    }
}
