import Foundation

/// Where a PostgreSQL server is and how to sign in to it, read from a `postgres://` URL.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://hearth:secret@127.0.0.1:5432/hearth")
/// ```
///
/// A host starting with `/` is a Unix socket folder (`postgres://postgres@%2Ftmp:5432/db` or
/// `?host=/tmp`). The password is kept for connecting and never appears in ``description``.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address, or the folder of its Unix socket.
    public var host: String
    /// The server's port (5432 unless the URL says otherwise).
    public var port: Int
    /// The role to sign in as.
    public var username: String
    /// The role's password, if it has one.
    public var password: String?
    /// The database to use.
    public var database: String

    /// A location given part by part.
    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Reads `postgres://user[:password]@host[:port]/database[?host=/socket/folder]`
    /// (`postgresql://` too); throws a ``PostgresLocationError`` naming what is wrong.
    public init(url text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme, scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresLocationError(message: "expected a postgres://user@host/database URL")
        }
        var host = url.host.flatMap { $0.removingPercentEncoding } ?? ""
        if let socket = url.queryItems?.first(where: { $0.name == "host" })?.value { host = socket }
        guard !host.isEmpty else { throw PostgresLocationError(message: "the URL names no host") }
        guard let user = url.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw PostgresLocationError(message: "the URL names no user (postgres://user@host/database)")
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw PostgresLocationError(message: "the URL names no database (postgres://user@host/database)") }
        if let sslmode = url.queryItems?.first(where: { $0.name == "sslmode" })?.value, sslmode != "disable" {
            throw PostgresLocationError(message: "sslmode=\(sslmode) is not supported yet; use a local or tunnelled server with sslmode=disable")
        }
        self.init(
            host: host, port: url.port ?? 5432, username: user, password: url.password.flatMap { $0.removingPercentEncoding },
            database: database.removingPercentEncoding ?? database)
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }
}

/// A `postgres://` URL that cannot be used.
public struct PostgresLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the URL (it never repeats the password).
    public var message: String

    /// An error saying `message`.
    public init(message: String) { self.message = message }

    /// Describes the problem.
    public var description: String { "Invalid PostgreSQL URL: \(message)" }
}
