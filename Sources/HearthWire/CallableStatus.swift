/// The status codes of Firebase's callable-function protocol (`{"error":{"status": …}}`), with
/// the HTTP status each answers with. Shared by the server and the SDK.
public enum CallableStatus: String, Sendable, Hashable, CaseIterable {
    /// The call was cancelled, typically by the caller (HTTP 499).
    case cancelled = "CANCELLED"
    /// An error with no better status (HTTP 500).
    case unknown = "UNKNOWN"
    /// The caller sent a bad argument, whatever the state of the system (HTTP 400).
    case invalidArgument = "INVALID_ARGUMENT"
    /// The deadline passed before the call finished (HTTP 504).
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    /// Something the call needed does not exist (HTTP 404).
    case notFound = "NOT_FOUND"
    /// Something the call wanted to create exists already (HTTP 409).
    case alreadyExists = "ALREADY_EXISTS"
    /// The caller is known but may not do this (HTTP 403).
    case permissionDenied = "PERMISSION_DENIED"
    /// A quota or rate limit ran out (HTTP 429).
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    /// The system is not in the state the call needs; retrying as is will not help (HTTP 400).
    case failedPrecondition = "FAILED_PRECONDITION"
    /// The call lost a race (a concurrency conflict); retrying may help (HTTP 409).
    case aborted = "ABORTED"
    /// An argument is past the valid range (HTTP 400).
    case outOfRange = "OUT_OF_RANGE"
    /// The function or operation is not implemented (HTTP 501).
    case unimplemented = "UNIMPLEMENTED"
    /// An invariant broke inside the server; also what a function's untyped error becomes (HTTP 500).
    case `internal` = "INTERNAL"
    /// The service is unavailable for now; retrying later may help (HTTP 503).
    case unavailable = "UNAVAILABLE"
    /// Data was lost or corrupted (HTTP 500).
    case dataLoss = "DATA_LOSS"
    /// The call has no valid credential (HTTP 401).
    case unauthenticated = "UNAUTHENTICATED"

    /// The HTTP status the callable protocol answers this status with.
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
