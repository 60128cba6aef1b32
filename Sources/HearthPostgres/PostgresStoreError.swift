import PostgresNIO

/// A failure reported by PostgreSQL or by the connection to it.
///
/// The message is the server's (SQLSTATE and text) or the connection's; it never contains the
/// statement's parameters, so no user data or secret reaches a log through it.
public struct PostgresStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLSTATE code when the server answered with an error (`40001` serialization failure, `23505` unique violation…).
    public var sqlState: String?
    /// What went wrong.
    public var message: String

    init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    init(_ error: any Error) {
        if let error = error as? PostgresStoreError {
            self = error
        } else if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState]
            let text = error.serverInfo?[.message] ?? "\(error.code)"
            self.init(sqlState: state, message: text)
        } else {
            self.init(sqlState: nil, message: String(describing: error))
        }
    }

    /// A transaction that lost a race and may simply run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The connection is gone or going: no answer came (nil state), a connection exception (class
    /// 08), or the server is shutting down or restarting (57P01–57P03).
    var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    /// The text of the error, with its SQLSTATE.
    public var description: String {
        sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }
}
