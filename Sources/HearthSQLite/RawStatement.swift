import GRDB
import GRDBSQLite

/// Steps one of GRDB's cached statements through SQLite's C API, for the few statements every request runs.
///
/// A GET of one small leaf spent about a third of its database time in GRDB's row machinery (a cursor, a `Row`
/// object and a `DatabaseValue` per column, arguments boxed as `DatabaseValueConvertible`) rather than in SQLite.
/// These helpers bind and read blobs directly and always leave the statement reset with no bindings, so GRDB can
/// keep using the same cached statement.
struct RawStatement {
    private let handle: OpaquePointer
    private let db: GRDB.Database

    init(_ statement: Statement, in db: GRDB.Database) {
        self.handle = statement.sqliteStatement
        self.db = db
    }

    /// Binds `blobs` (nil binds NULL) and runs a statement that returns no rows (`BEGIN`, `INSERT`, …).
    func execute(_ blobs: [[UInt8]?] = []) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(blobs)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code) }
    }

    /// Binds `blobs` (nil binds NULL), then calls `body` for every result row.
    func forEachRow(_ blobs: [[UInt8]?], _ body: (RawRow) throws -> Void) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(blobs)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code) }
            try body(RawRow(handle: handle))
        }
    }

    private func bind(_ blobs: [[UInt8]?]) throws {
        for (index, blob) in blobs.enumerated() {
            let code: Int32
            if let blob {
                code = blob.withUnsafeBytes { raw in
                    // SQLITE_TRANSIENT: SQLite copies the bytes, so the array may go away before the step. An empty
                    // array has no base address, which would bind NULL; bind a zero-length blob instead.
                    raw.baseAddress == nil
                        ? sqlite3_bind_zeroblob(handle, Int32(index + 1), 0)
                        : sqlite3_bind_blob(handle, Int32(index + 1), raw.baseAddress, Int32(raw.count), Self.transient)
                }
            } else {
                code = sqlite3_bind_null(handle, Int32(index + 1))
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_errmsg(db.sqliteConnection).map { String(cString: $0) }
        let sql = sqlite3_sql(handle).map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The current row of a `RawStatement`; valid only inside the `forEachRow` body.
struct RawRow {
    let handle: OpaquePointer

    /// The column's bytes, or nil for SQL NULL. The buffer is valid until the next step.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        // sqlite3_column_blob must come before sqlite3_column_bytes (SQLite's documented order).
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let base, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base, count: count)
    }
}
