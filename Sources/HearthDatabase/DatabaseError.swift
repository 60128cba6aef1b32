/// Why the database service refused a request. It names no protocol: REST answers
/// ``invalid(_:)`` with 400 and ``permissionDenied(reason:)`` with 401, the realtime protocol with
/// the `failed` and `permission_denied` statuses, and functions throw it to their caller as it is.
public enum DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request is malformed: a path, a value, a query or a limit. The message is safe to show a
    /// client (Firebase's wording where Firebase has one).
    case invalid(String)
    /// The security rules deny it. `reason` names the deciding rule, for development diagnostics
    /// only (never shown outside `--dev`); nil when no single rule decided.
    case permissionDenied(reason: String?)
    /// The namespace (a database) cannot be used: it does not exist, or every open one is busy.
    case namespace(NamespaceError)

    /// The message a client may see.
    public var description: String {
        switch self {
        case .invalid(let message): message
        case .permissionDenied: "Permission denied"
        case .namespace(let error): error.message
        }
    }
}
