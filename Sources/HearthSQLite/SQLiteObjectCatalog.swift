import Foundation
import GRDB
public import HearthStore

/// Buckets, object metadata and resumable-upload sessions in their own SQLite file
/// (`<data>/<project>.storage.sqlite`). Names sort with SQLite's BINARY collation: UTF-8 bytes,
/// the order Cloud Storage lists in.
public final class SQLiteObjectCatalog: ObjectCatalog {
    private let queue: DatabaseQueue
    private let committer: GroupCommitter

    /// - Parameters:
    ///   - path: the catalog file, created with its tables when absent.
    ///   - durable: sync every commit (survives power loss); otherwise commits survive a
    ///     crash of the process but not of the machine (`--durability normal`).
    public init(path: String, durable: Bool = true) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        committer = GroupCommitter(queue: queue)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS buckets(name TEXT PRIMARY KEY NOT NULL, record BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS objects(
                    bucket TEXT NOT NULL, name TEXT NOT NULL, record BLOB NOT NULL, PRIMARY KEY(bucket, name)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS uploads(id TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
                """)
            try db.execute(sql: SQLiteOutbox.schema)
        }
    }

    /// Concurrent transactions commit together (one sync for many uploads); each still succeeds or
    /// fails on its own.
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try await SQLiteFull.mapping { try await committer.write { db in try body(Transaction(db: db)) } }
    }

    /// Runs `body` in a read-only transaction on the catalog's serial queue: it waits while a batch commits,
    /// and writes in it fail.
    public func read<R: Sendable>(_ body: @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try await queue.read { db in try body(Transaction(db: db)) }
    }

    struct Transaction: ObjectTransaction, SQLiteOutboxHost {
        let db: GRDB.Database

        func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T { try JSONDecoder().decode(type, from: data) }

        func bucket(_ name: String) throws -> BucketRecord? {
            try Data.fetchOne(db, sql: "SELECT record FROM buckets WHERE name = ?", arguments: [name]).map { try decode(BucketRecord.self, $0) }
        }

        func buckets() throws -> [BucketRecord] {
            try Data.fetchAll(db, sql: "SELECT record FROM buckets ORDER BY name").map { try decode(BucketRecord.self, $0) }
        }

        func saveBucket(_ bucket: BucketRecord) throws {
            try db.execute(
                sql: "INSERT OR REPLACE INTO buckets(name, record) VALUES(?, ?)", arguments: [bucket.name, try JSONEncoder().encode(bucket)])
        }

        func deleteBucket(_ name: String) throws {
            try db.execute(sql: "DELETE FROM objects WHERE bucket = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM buckets WHERE name = ?", arguments: [name])
        }

        func hasObjects(bucket: String) throws -> Bool {
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM objects WHERE bucket = ?)", arguments: [bucket]) ?? false
        }

        func object(bucket: String, name: String) throws -> ObjectRecord? {
            try Data.fetchOne(db, sql: "SELECT record FROM objects WHERE bucket = ? AND name = ?", arguments: [bucket, name])
                .map { try decode(ObjectRecord.self, $0) }
        }

        func saveObject(_ object: ObjectRecord) throws {
            try db.execute(
                sql: "INSERT OR REPLACE INTO objects(bucket, name, record) VALUES(?, ?, ?)",
                arguments: [object.bucket, object.name, try JSONEncoder().encode(object)])
        }

        func deleteObject(bucket: String, name: String) throws {
            try db.execute(sql: "DELETE FROM objects WHERE bucket = ? AND name = ?", arguments: [bucket, name])
        }

        func objects(bucket: String, from lower: String, inclusive: Bool, before upper: String?, limit: Int) throws -> [ObjectRecord] {
            var sql = "SELECT record FROM objects WHERE bucket = ? AND name \(inclusive ? ">=" : ">") ?"
            var arguments: StatementArguments = [bucket, lower]
            if let upper {
                sql += " AND name < ?"
                arguments += [upper]
            }
            sql += " ORDER BY name LIMIT ?"
            arguments += [limit]
            return try Data.fetchAll(db, sql: sql, arguments: arguments).map { try decode(ObjectRecord.self, $0) }
        }

        func upload(_ id: String) throws -> Data? {
            try Data.fetchOne(db, sql: "SELECT data FROM uploads WHERE id = ?", arguments: [id])
        }

        func saveUpload(_ id: String, data: Data, created: Int64) throws {
            try db.execute(sql: "INSERT OR REPLACE INTO uploads(id, data, created) VALUES(?, ?, ?)", arguments: [id, data, created])
        }

        func deleteUpload(_ id: String) throws { try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [id]) }

        func deleteUploads(createdBefore: Int64) throws {
            try db.execute(sql: "DELETE FROM uploads WHERE created < ?", arguments: [createdBefore])
        }
    }
}
