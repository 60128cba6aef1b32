import Foundation
import GRDB
import HearthStore

/// A transaction whose file holds an outbox: the namespace's own file for database triggers, the
/// accounts and object-catalog files for auth and storage triggers, so that an event commits with the
/// change that caused it.
protocol SQLiteOutboxHost: OutboxReader, OutboxWriter {
    var db: GRDB.Database { get }
}

extension SQLiteTransaction: SQLiteOutboxHost {}

enum SQLiteOutbox {
    static let schema = """
        CREATE TABLE IF NOT EXISTS outbox(
            id INTEGER PRIMARY KEY AUTOINCREMENT, fn TEXT NOT NULL, payload BLOB NOT NULL, created INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL, error TEXT, dead INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX IF NOT EXISTS outbox_due ON outbox(dead, next_at);
        CREATE TABLE IF NOT EXISTS claimed_keys(k TEXT PRIMARY KEY NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
        """

    static let columns = "id, fn, payload, created, attempts, next_at, error, dead"

    static func event(_ row: Row) -> OutboxEvent {
        let payload: Data = row[2]
        return OutboxEvent(
            id: row[0], function: row[1], payload: Array(payload), createdAt: row[3], attempts: row[4], nextAttemptAt: row[5],
            lastError: row[6], dead: row[7] as Int64 != 0)
    }

}

extension SQLiteOutboxHost {
    func dueEvents(now: Int64, limit: Int) throws -> [OutboxEvent] {
        let sql = "SELECT \(SQLiteOutbox.columns) FROM outbox WHERE dead = 0 AND next_at <= ? ORDER BY id LIMIT ?"
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [now, limit]).map(SQLiteOutbox.event)
    }

    func nextEventTime() throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(next_at) FROM outbox WHERE dead = 0"))
    }

    func deadEvents(after id: Int64, limit: Int) throws -> [OutboxEvent] {
        let sql = "SELECT \(SQLiteOutbox.columns) FROM outbox WHERE dead = 1 AND id > ? ORDER BY id LIMIT ?"
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [id, limit]).map(SQLiteOutbox.event)
    }

    func event(_ id: Int64) throws -> OutboxEvent? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteOutbox.columns) FROM outbox WHERE id = ?"), arguments: [id]).map(SQLiteOutbox.event)
    }

    func enqueueEvent(function: String, payload: [UInt8], at: Int64) throws -> Int64 {
        let sql = "INSERT INTO outbox(fn, payload, created, next_at) VALUES (?, ?, ?, ?)"
        try db.cachedStatement(sql: sql).execute(arguments: [function, Data(payload), at, at])
        return db.lastInsertedRowID
    }

    func finishEvents(_ ids: [Int64]) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?")
        for id in ids { try statement.execute(arguments: [id]) }
    }

    func retryEvent(_ id: Int64, attempts: Int, at: Int64, error: String) throws {
        let sql = "UPDATE outbox SET attempts = ?, next_at = ?, error = ? WHERE id = ?"
        try db.cachedStatement(sql: sql).execute(arguments: [attempts, at, error, id])
    }

    func buryEvent(_ id: Int64, attempts: Int, error: String) throws {
        let sql = "UPDATE outbox SET attempts = ?, error = ?, dead = 1 WHERE id = ?"
        try db.cachedStatement(sql: sql).execute(arguments: [attempts, error, id])
    }

    func reviveEvent(_ id: Int64, at: Int64) throws -> Bool {
        let sql = "UPDATE outbox SET dead = 0, attempts = 0, next_at = ? WHERE id = ? AND dead = 1"
        try db.cachedStatement(sql: sql).execute(arguments: [at, id])
        return db.changesCount > 0
    }

    func isClaimed(_ key: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM claimed_keys WHERE k = ?"), arguments: [key]) ?? false
    }

    func claimKey(_ key: String, at: Int64) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO claimed_keys(k, at) VALUES (?, ?)").execute(arguments: [key, at])
        return db.changesCount > 0
    }

    func forgetKeys(claimedBefore time: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM claimed_keys WHERE at < ?").execute(arguments: [time])
    }
}
