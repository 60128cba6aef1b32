/// The action (`a`) of a client request on the realtime wire.
///
/// The raw value is the wire string. A name this version does not know (from a newer client) is kept
/// as ``other(_:)`` and spelled back exactly as it came, so the server can answer it `failed`
/// ("Unknown action X") instead of dropping it.
public enum RealtimeAction: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `s`: client statistics; answered `ok`.
    case stats
    /// `auth`: sign in with an ID token (or the admin credential).
    case auth
    /// `gauth`: sign in with a non-JWT credential (an admin SDK's access token, `owner`).
    case googleAuth
    /// `unauth`: back to signed out.
    case unauth
    /// `appcheck`: an App Check token; answered `ok`.
    case appCheck
    /// `unappeck` (Firebase's spelling): withdraw the App Check token; answered `ok`.
    case appCheckRemove
    /// `q`: listen to a location, or a query at it when tagged.
    case listen
    /// `l`: the legacy spelling of an untagged listen; means the same as ``listen``.
    case legacyListen
    /// `n`: stop a listen.
    case unlisten
    /// `u`: the legacy spelling of ``unlisten``.
    case legacyUnlisten
    /// `g`: read a location (or a query) once.
    case get
    /// `p`: overwrite a location (with `h`, only if its data still has that hash).
    case put
    /// `m`: update several relative paths under a location.
    case merge
    /// `o`: overwrite a location when the connection closes.
    case onDisconnectPut
    /// `om`: update a location when the connection closes.
    case onDisconnectMerge
    /// `oc`: cancel the onDisconnect operations at and below a location.
    case onDisconnectCancel
    /// An action this version has no case for, kept as sent.
    case other(String)

    /// The action for a wire string; never fails (an unknown string is ``other(_:)``).
    public init(rawValue: String) {
        switch rawValue {
        case "s": self = .stats
        case "auth": self = .auth
        case "gauth": self = .googleAuth
        case "unauth": self = .unauth
        case "appcheck": self = .appCheck
        case "unappeck": self = .appCheckRemove
        case "q": self = .listen
        case "l": self = .legacyListen
        case "n": self = .unlisten
        case "u": self = .legacyUnlisten
        case "g": self = .get
        case "p": self = .put
        case "m": self = .merge
        case "o": self = .onDisconnectPut
        case "om": self = .onDisconnectMerge
        case "oc": self = .onDisconnectCancel
        default: self = .other(rawValue)
        }
    }

    /// The wire string.
    public var rawValue: String {
        switch self {
        case .stats: "s"
        case .auth: "auth"
        case .googleAuth: "gauth"
        case .unauth: "unauth"
        case .appCheck: "appcheck"
        case .appCheckRemove: "unappeck"
        case .listen: "q"
        case .legacyListen: "l"
        case .unlisten: "n"
        case .legacyUnlisten: "u"
        case .get: "g"
        case .put: "p"
        case .merge: "m"
        case .onDisconnectPut: "o"
        case .onDisconnectMerge: "om"
        case .onDisconnectCancel: "oc"
        case .other(let name): name
        }
    }

    /// Every action with a case of its own, in wire-table order (for tests and documentation).
    public static let known: [RealtimeAction] = [
        .stats, .auth, .googleAuth, .unauth, .appCheck, .appCheckRemove, .listen, .legacyListen, .unlisten, .legacyUnlisten,
        .get, .put, .merge, .onDisconnectPut, .onDisconnectMerge, .onDisconnectCancel,
    ]

    /// The action spelled by a string literal (`"q"` is ``listen``).
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The wire string.
    public var description: String { rawValue }

    /// Equal when they spell the same wire string (a name built as `.other` equals its own case).
    public static func == (lhs: RealtimeAction, rhs: RealtimeAction) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire string, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
