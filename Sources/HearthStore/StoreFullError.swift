/// The disk that holds the data has no room left: the write was not saved. Stores throw it for their backend's own
/// "disk full" (SQLite's `SQLITE_FULL`, PostgreSQL's `53100`), so the edges can answer it plainly (HTTP 507) instead
/// of as an internal error; the write can be retried once space returns.
public struct StoreFullError: Error, Sendable, CustomStringConvertible {
    /// The backend's own words, for the log.
    public let detail: String

    /// An error carrying the backend's `detail`.
    public init(detail: String) {
        self.detail = detail
    }

    /// What a client is told.
    public var description: String { "The server's disk is full: the write was not saved. Try again once space is freed." }
}
