import GRDB
import HearthStore

/// SQLite's "disk full" (`SQLITE_FULL`) as the stores' ``StoreFullError``, so every product can answer it plainly
/// (HTTP 507) instead of as an internal error. SQLite rolls the transaction back, so nothing was saved.
enum SQLiteFull {
    /// Runs `body`, rethrowing `SQLITE_FULL` as ``StoreFullError`` and every other error as it is.
    static func mapping<R>(_ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch let error as GRDB.DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StoreFullError(detail: "\(error)")
        }
    }
}
