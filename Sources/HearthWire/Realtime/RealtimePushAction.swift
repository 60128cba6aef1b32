/// The action (`a`) of a message the server pushes without being asked.
///
/// The raw value is the wire string; an action this version does not know is kept as ``other(_:)``
/// (a client ignores it rather than failing).
public enum RealtimePushAction: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `d`: the data at a location is overwritten (``RealtimeDataPush``).
    case data
    /// `m`: relative paths under a location change (``RealtimeDataPush`` with an object).
    case merge
    /// `c`: a listen was ended by the server (``RealtimeListenRevoked``).
    case listenRevoked
    /// `ac`: the connection's credential no longer counts (``RealtimeAuthRevoked``).
    case authRevoked
    /// `apc`: the App Check token no longer counts; Hearth does not send it.
    case appCheckRevoked
    /// `sd`: security debug text; Hearth does not send it.
    case securityDebug
    /// `rm`: a range merge (mobile clients); Hearth does not send it.
    case rangeMerge
    /// A push action this version has no case for, kept as sent.
    case other(String)

    /// The action for a wire string; never fails (an unknown string is ``other(_:)``).
    public init(rawValue: String) {
        switch rawValue {
        case "d": self = .data
        case "m": self = .merge
        case "c": self = .listenRevoked
        case "ac": self = .authRevoked
        case "apc": self = .appCheckRevoked
        case "sd": self = .securityDebug
        case "rm": self = .rangeMerge
        default: self = .other(rawValue)
        }
    }

    /// The wire string.
    public var rawValue: String {
        switch self {
        case .data: "d"
        case .merge: "m"
        case .listenRevoked: "c"
        case .authRevoked: "ac"
        case .appCheckRevoked: "apc"
        case .securityDebug: "sd"
        case .rangeMerge: "rm"
        case .other(let name): name
        }
    }

    /// Every push action with a case of its own.
    public static let known: [RealtimePushAction] = [.data, .merge, .listenRevoked, .authRevoked, .appCheckRevoked, .securityDebug, .rangeMerge]

    /// The action spelled by a string literal (`"d"` is ``data``).
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The wire string.
    public var description: String { rawValue }

    /// Equal when they spell the same wire string (a name built as `.other` equals its own case).
    public static func == (lhs: RealtimePushAction, rhs: RealtimePushAction) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire string, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
