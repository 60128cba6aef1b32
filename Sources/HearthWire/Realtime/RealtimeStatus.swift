/// The status (`s`) of a realtime response, and of an `ac` push.
///
/// The raw value is the wire string, which clients compare (the JS SDK branches on `datastale`). A
/// status this version does not know is kept as ``other(_:)``.
public enum RealtimeStatus: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `ok`: the request succeeded.
    case ok
    /// `permission_denied`: the security rules refused the request.
    case permissionDenied
    /// `datastale`: a transaction's expected hash did not match the stored value: the client retries with fresh data.
    case dataStale
    /// `failed`: the request could not be done (an unknown action, an invalid path or value).
    case failed
    /// `too_big`: Firebase's answer when data asked for exceeds what one request may read; Hearth does not send it today.
    case tooBig
    /// `unavailable`: the server failed internally; the client may retry.
    case unavailable
    /// `invalid_token`: an `auth` request without a credential, or with one that does not verify.
    case invalidToken
    /// `expired_token`: an `auth` request whose token has expired; also pushed when the session's token expires.
    case expiredToken
    /// A status this version has no case for, kept as sent.
    case other(String)

    /// The status for a wire string; never fails (an unknown string is ``other(_:)``).
    public init(rawValue: String) {
        switch rawValue {
        case "ok": self = .ok
        case "permission_denied": self = .permissionDenied
        case "datastale": self = .dataStale
        case "failed": self = .failed
        case "too_big": self = .tooBig
        case "unavailable": self = .unavailable
        case "invalid_token": self = .invalidToken
        case "expired_token": self = .expiredToken
        default: self = .other(rawValue)
        }
    }

    /// The wire string.
    public var rawValue: String {
        switch self {
        case .ok: "ok"
        case .permissionDenied: "permission_denied"
        case .dataStale: "datastale"
        case .failed: "failed"
        case .tooBig: "too_big"
        case .unavailable: "unavailable"
        case .invalidToken: "invalid_token"
        case .expiredToken: "expired_token"
        case .other(let name): name
        }
    }

    /// Every status with a case of its own.
    public static let known: [RealtimeStatus] = [.ok, .permissionDenied, .dataStale, .failed, .tooBig, .unavailable, .invalidToken, .expiredToken]

    /// The status spelled by a string literal (`"ok"` is ``ok``).
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The wire string.
    public var description: String { rawValue }

    /// Equal when they spell the same wire string (a name built as `.other` equals its own case).
    public static func == (lhs: RealtimeStatus, rhs: RealtimeStatus) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire string, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
