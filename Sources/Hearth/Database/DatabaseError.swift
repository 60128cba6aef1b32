import HearthCore

/// Why a database operation failed.
///
/// Match on ``code`` (stable; new codes may be added) and read ``path`` for the location involved:
/// ```swift
/// do {
///     let user = try await ref.getValue(as: User.self)
/// } catch let error where error.code == .notFound {
///     // nothing stored at error.path
/// }
/// ```
/// Errors compare equal when their code and path are equal (the message and cause are ignored).
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case notFound = "not_found"
            case decodingFailed = "decoding_failed"
            case encodingFailed = "encoding_failed"
            case invalidPath = "invalid_path"
            case invalidData = "invalid_data"
            case permissionDenied = "permission_denied"
            case dataStale = "datastale"
            case maxRetries = "maxretry"
            case disconnected = "disconnected"
            case offline = "offline"
            case writeQueueFull = "write_queue_full"
            case listenRevoked = "listen_revoked"
            case server = "server_error"
            case databaseClosed = "database_closed"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Nothing is stored at the location (and the requested type is not optional).
        public static let notFound = Code(.notFound)
        /// The stored JSON does not decode as the requested type.
        public static let decodingFailed = Code(.decodingFailed)
        /// The value could not be encoded as JSON.
        public static let encodingFailed = Code(.encodingFailed)
        /// A key in the path is empty, too long or contains `. $ # [ ] /` or a control character.
        public static let invalidPath = Code(.invalidPath)
        /// The value cannot be stored (too deep, invalid keys, overlapping update paths, …).
        public static let invalidData = Code(.invalidData)
        /// The security rules refused the operation.
        public static let permissionDenied = Code(.permissionDenied)
        /// A compare-and-set found different data (internal to transactions; retried).
        public static let dataStale = Code(.dataStale)
        /// A transaction kept conflicting with other writers and gave up (25 attempts).
        public static let maxRetries = Code(.maxRetries)
        /// The connection was closed before the server answered. A write made with persistence stays queued on disk
        /// and is sent by the next ``Database`` on the same folder.
        public static let disconnected = Code(.disconnected)
        /// The database was closed (``Database/close()``) before the call reached it: nothing was written or read.
        public static let databaseClosed = Code(.databaseClosed)
        /// The database is offline and has no cached data for the location.
        public static let offline = Code(.offline)
        /// Too many writes are waiting for the server (see ``Database`` persistence bounds).
        public static let writeQueueFull = Code(.writeQueueFull)
        /// The server stopped a listen (its rules changed).
        public static let listenRevoked = Code(.listenRevoked)
        /// Any other status the server answered with (see ``DatabaseError/message``).
        public static let server = Code(.server)

        /// The code's wire-style name (`permission_denied`, `datastale`, …).
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The location the operation was about (`/` for the root).
    public var path: String
    /// A safe, human-readable explanation (never contains user data).
    public var message: String
    /// The underlying error, e.g. a `DecodingError`.
    public var cause: (any Error)?

    /// Creates an error (the SDK's own errors use the static constructors below).
    public init(code: Code, path: String, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.cause = cause
    }

    /// `<code> at <path>: <message>`.
    public var description: String { "\(code) at \(path): \(message)" }

    /// Equal when code and path are equal; the message and cause are not compared.
    public static func == (a: DatabaseError, b: DatabaseError) -> Bool { a.code == b.code && a.path == b.path }

    /// Nothing stored at `path`.
    public static func notFound(_ path: String) -> DatabaseError {
        DatabaseError(code: .notFound, path: path, message: "No data at this location")
    }

    /// The data at `path` does not decode; `underlying` is the `DecodingError`.
    public static func decodingFailed(_ path: String, _ underlying: any Error) -> DatabaseError {
        DatabaseError(code: .decodingFailed, path: path, message: "The data does not decode as the requested type", cause: underlying)
    }

    /// The rules refused an operation at `path`.
    public static func permissionDenied(_ path: String) -> DatabaseError {
        DatabaseError(code: .permissionDenied, path: path, message: "Permission denied")
    }

    /// `path` has an invalid key.
    public static func invalidPath(_ path: String, _ reason: String) -> DatabaseError {
        DatabaseError(code: .invalidPath, path: path, message: reason)
    }

    /// The value written at `path` cannot be stored.
    public static func invalidData(_ path: String, _ reason: String) -> DatabaseError {
        DatabaseError(code: .invalidData, path: path, message: reason)
    }

    /// Offline, with nothing cached at `path`.
    public static func offline(_ path: String) -> DatabaseError {
        DatabaseError(code: .offline, path: path, message: "The client is offline and has no cached data here")
    }

    /// The database was closed before a call about `path` reached it.
    public static func databaseClosed(_ path: String) -> DatabaseError {
        DatabaseError(code: .databaseClosed, path: path, message: "The database was closed; nothing was done")
    }

    /// The connection closed before the server answered about `path`.
    public static func disconnected(_ path: String) -> DatabaseError {
        DatabaseError(code: .disconnected, path: path, message: "The connection closed before the server answered")
    }
}

extension DatabaseError {
    /// Maps a connection error (a server status) onto a database error.
    static func from(_ error: any Error, path: Path) -> DatabaseError {
        if let e = error as? DatabaseError { return e }
        let where_ = path.description
        guard let r = error as? RealtimeError else {
            if error is CancellationError {
                return DatabaseError(code: .disconnected, path: where_, message: "Cancelled", cause: error)
            }
            return DatabaseError(code: .server, path: where_, message: "Request failed", cause: error)
        }
        switch r.status {
        case "permission_denied": return .permissionDenied(where_)
        case "datastale": return DatabaseError(code: .dataStale, path: where_, message: r.message)
        case "closed", "disconnected": return .disconnected(where_)
        case "offline": return .offline(where_)
        default: return DatabaseError(code: .server, path: where_, message: r.status + ": " + r.message)
        }
    }
}
