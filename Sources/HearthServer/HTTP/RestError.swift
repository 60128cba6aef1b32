import HTTPTypes
import HearthDatabase

/// An error that leaves the server as `{"error": message}` with a status (mapping happens only here).
struct RestError: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    /// For rules denials: the rule that decided. Sent as `X-Hearth-Rule` in `--dev` only.
    var ruleReason: String?

    init(_ status: HTTPResponse.Status, _ message: String, ruleReason: String? = nil) {
        self.status = status
        self.message = message
        self.ruleReason = ruleReason
    }

    static func badRequest(_ message: String) -> RestError { RestError(.badRequest, message) }
    static let permissionDenied = RestError(.unauthorized, "Permission denied")

    static func permissionDenied(_ reason: String) -> RestError {
        RestError(.unauthorized, "Permission denied", ruleReason: reason)
    }
}

extension RestError {
    /// How a namespace that cannot be had is answered.
    init(_ error: NamespaceError) {
        switch error.code {
        case .notFound: self.init(.notFound, error.message)
        case .exists: self.init(.conflict, error.message)
        case .busy, .unavailable: self.init(.serviceUnavailable, error.message)
        case .invalid: self.init(.badRequest, error.message)
        }
    }
}

extension RestError {
    /// How REST answers a database error: 400 with the message, 401 `Permission denied` (the
    /// deciding rule kept for `--dev` diagnostics), or the namespace's own status.
    init(_ error: DatabaseError) {
        switch error {
        case .invalid(let message): self.init(.badRequest, message)
        case .permissionDenied(let reason?): self = .permissionDenied(reason)
        case .permissionDenied(nil): self = .permissionDenied
        case .namespace(let e): self.init(e)
        }
    }
}
