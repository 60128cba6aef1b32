import Foundation
import GRDB
import HearthCore
public import HearthStore

/// The embedded backend: one SQLite database (WAL mode) per namespace.
///
/// Leaves are rows keyed by `PathEncoding`, so a subtree is one range scan in Firebase key order.
/// Readers use WAL snapshots and never wait for the writer.
public final class SQLiteStore: DatabaseStore {
    /// How hard a commit waits for the disk.
    public enum Durability: String, Sendable {
        /// fsync on every commit: survives power loss.
        case full
        /// fsync at checkpoints: survives a process crash (`kill -9`), may lose the last commits on power loss.
        case normal
    }

    private let pool: DatabasePool
    private let readers: ReaderConnections
    /// Whether every commit also records its changes in the `write_log` table (``WriteLog``).
    public let writeLog: Bool

    /// Opens (creating when absent) the namespace database at `path` and creates its tables; throws if the file cannot be opened as SQLite.
    /// With `writeLog`, every commit also records its changes in the `write_log` table (see ``WriteLog``).
    public init(path: String, durability: Durability = .full, writeLog: Bool = false) throws {
        self.writeLog = writeLog
        var config = Configuration()
        config.maximumReaderCount = 2
        // Another connection may write for a moment (`hearth backup` pruning the write log in small
        // batches): wait for it instead of failing the request with SQLITE_BUSY.
        config.busyMode = .timeout(10)
        let sync = durability == .full ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(sync)")
        }
        pool = try DatabasePool(path: path, configuration: config)
        readers = ReaderConnections(path: path, configuration: config)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS tree(p BLOB PRIMARY KEY NOT NULL, v BLOB, pr BLOB) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY NOT NULL, v) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS idx_specs(id INTEGER PRIMARY KEY, pattern TEXT NOT NULL, spec TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS idx(
                    ix INTEGER NOT NULL, parent BLOB NOT NULL, v BLOB NOT NULL, k BLOB NOT NULL,
                    PRIMARY KEY(ix, parent, v, k)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS idx_by_child ON idx(ix, parent, k);
                """)
            try db.execute(sql: SQLiteOutbox.schema)
            if writeLog { try db.execute(sql: WriteLog.schema) }
        }
    }

    /// Reads run synchronously on the calling thread: a WAL read of a few pages takes microseconds,
    /// far less than the thread switches an asynchronous hop to a reader queue costs (profiled:
    /// thread wake-ups dominated GET). A connection is opened when none is free, so a read never
    /// parks a thread waiting for one.
    public func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R {
        try readNow(body)
    }

    /// The same read as ``snapshot(_:)``, on the calling thread; never nil.
    public func snapshotNow<R>(_ body: (any StoreReader) throws -> R) throws -> R? {
        try readNow(body)
    }

    private func readNow<R>(_ body: (any StoreReader) throws -> R) throws -> R {
        try readers.read { db in try body(SQLiteTransaction(db)) }
    }

    /// The names of every stored setting (the rules, the `schedule:<job>` ticks of scheduled functions, …), which
    /// the store protocol cannot list: for copying a namespace to another backend (`hearth migrate`).
    public func settingNames() throws -> [String] {
        try readers.read { db in try String.fetchAll(db, sql: "SELECT substr(k, 9) FROM meta WHERE substr(k, 1, 8) = 'setting:' ORDER BY k") }
    }

    /// Runs `body` in one write transaction (SQLite allows one writer at a time), committed with the store's ``Durability`` before this returns.
    /// A full disk (`SQLITE_FULL`) is thrown as ``StoreFullError``; the transaction is rolled back.
    public func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R {
        do {
            let writeLog = self.writeLog
            return try await pool.write { db in
                let tx = SQLiteTransaction(db)
                tx.writeLog = writeLog
                return try body(tx)
            }
        } catch let error as GRDB.DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StoreFullError(detail: "\(error)")
        }
    }

    /// Closes the reader connections and the pool; later calls fail.
    public func close() async throws {
        try readers.close()
        try pool.close()
    }
}

/// Opens `<folder>/<namespace>.sqlite`.
public struct SQLiteStoreFactory: StoreFactory {
    /// The data folder holding one `<namespace>.sqlite` file per namespace.
    public var folder: String
    /// The durability every store it opens uses.
    public var durability: SQLiteStore.Durability
    /// Whether the stores it opens keep a write log (``WriteLog``); off unless set.
    public var writeLog = false

    /// A factory for the files in `folder`; it does not create the folder.
    public init(folder: String, durability: SQLiteStore.Durability = .full) {
        self.folder = folder
        self.durability = durability
    }

    /// Opens `<folder>/<namespace>.sqlite`, creating it when absent; the namespace name is used as given (the caller validates it).
    public func open(namespace: String) async throws -> any DatabaseStore {
        try SQLiteStore(path: folder + "/" + namespace + ".sqlite", durability: durability, writeLog: writeLog)
    }

    /// The `<name>.sqlite` files of the folder whose name has no dot (the accounts, storage and
    /// links files beside them are `<project>.auth.sqlite` and so on).
    public func existingNamespaces() throws -> [String] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        }
        return files.compactMap { file in
            guard file.hasSuffix(".sqlite") else { return nil }
            let name = file.dropLast(".sqlite".count)
            return name.isEmpty || name.contains(".") ? nil : String(name)
        }
    }

    /// The size of each namespace's database file with its WAL and shared-memory files.
    public func namespaceSizes() async throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for name in try existingNamespaces() {
            let base = folder + "/" + name + ".sqlite"
            sizes[name] = [base, base + "-wal", base + "-shm"].reduce(Int64(0)) { total, file in
                let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
                return total + size
            }
        }
        return sizes
    }

    /// Removes the database file and its WAL and shared-memory files.
    public func delete(namespace: String) async throws {
        let base = folder + "/" + namespace + ".sqlite"
        for file in [base + "-wal", base + "-shm", base] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
