import GRDB
import Synchronization

/// Read-only connections to the WAL database, checked out under a lock and used on the calling
/// thread. Each read runs in its own deferred transaction, so it sees one consistent snapshot while
/// the writer commits. This avoids GRDB's pool bookkeeping, whose release wakes a dispatch thread on
/// every read (the largest cost in a GET profile).
final class ReaderConnections: Sendable {
    private let free: Mutex<[DatabaseQueue]>
    private let path: String
    private let configuration: Configuration

    init(path: String, configuration: Configuration) {
        self.path = path
        var config = configuration
        config.readonly = true
        self.configuration = config
        self.free = Mutex([])
    }

    func read<R>(_ body: (GRDB.Database) throws -> R) throws -> R {
        let connection = try free.withLock { $0.popLast() } ?? DatabaseQueue(path: path, configuration: configuration)
        defer { free.withLock { $0.append(connection) } }
        return try connection.inDatabase { db in
            // Cached statements: parsing BEGIN/COMMIT text on every read cost ~5 % of a GET.
            try RawStatement(db.cachedStatement(sql: "BEGIN DEFERRED"), in: db).execute()
            defer { _ = try? RawStatement(db.cachedStatement(sql: "COMMIT"), in: db).execute() }
            return try body(db)
        }
    }

    func close() throws {
        for connection in free.withLock({ list -> [DatabaseQueue] in
            defer { list = [] }
            return list
        }) {
            try connection.close()
        }
    }
}
