/// The status codes of Firebase's callable-function protocol (`{"error":{"status": …}}`), with
/// the HTTP status each answers with. Shared by the server and the SDK.
public enum CallableStatus: String, Sendable, Hashable, CaseIterable {
    case cancelled = "CANCELLED"
    case unknown = "UNKNOWN"
    case invalidArgument = "INVALID_ARGUMENT"
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    case notFound = "NOT_FOUND"
    case alreadyExists = "ALREADY_EXISTS"
    case permissionDenied = "PERMISSION_DENIED"
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    case failedPrecondition = "FAILED_PRECONDITION"
    case aborted = "ABORTED"
    case outOfRange = "OUT_OF_RANGE"
    case unimplemented = "UNIMPLEMENTED"
    case `internal` = "INTERNAL"
    case unavailable = "UNAVAILABLE"
    case dataLoss = "DATA_LOSS"
    case unauthenticated = "UNAUTHENTICATED"

    public var httpStatus: Int {
        switch self {
        case .cancelled: 499
        case .unknown, .internal, .dataLoss: 500
        case .invalidArgument, .failedPrecondition, .outOfRange: 400
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .permissionDenied: 403
        case .resourceExhausted: 429
        case .unimplemented: 501
        case .unavailable: 503
        case .unauthenticated: 401
        }
    }
}
