/// The type (`t`) of a control message (`{"t":"c","d":{"t":<type>,"d":<payload>}}`).
///
/// The raw value is the wire string; a type this version does not know is kept as ``other(_:)``.
public enum RealtimeControlType: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `h`: the server's handshake (time, version, host, session id).
    case handshake
    /// `p`: a client's ping.
    case ping
    /// `o`: the server's answer to a ping.
    case pong
    /// `s`: the server shuts the connection down (payload: the reason); the client stops retrying.
    case shutdown
    /// `r`: the server asks the client to reconnect (payload: a host).
    case reset
    /// `e`: an error text, for the log.
    case error
    /// `n`: end of transmission (a transport upgrade).
    case endOfTransmission
    /// A control type this version has no case for, kept as sent.
    case other(String)

    /// The type for a wire string; never fails (an unknown string is ``other(_:)``).
    public init(rawValue: String) {
        switch rawValue {
        case "h": self = .handshake
        case "p": self = .ping
        case "o": self = .pong
        case "s": self = .shutdown
        case "r": self = .reset
        case "e": self = .error
        case "n": self = .endOfTransmission
        default: self = .other(rawValue)
        }
    }

    /// The wire string.
    public var rawValue: String {
        switch self {
        case .handshake: "h"
        case .ping: "p"
        case .pong: "o"
        case .shutdown: "s"
        case .reset: "r"
        case .error: "e"
        case .endOfTransmission: "n"
        case .other(let name): name
        }
    }

    /// Every control type with a case of its own.
    public static let known: [RealtimeControlType] = [.handshake, .ping, .pong, .shutdown, .reset, .error, .endOfTransmission]

    /// The type spelled by a string literal (`"h"` is ``handshake``).
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The wire string.
    public var description: String { rawValue }

    /// Equal when they spell the same wire string (a name built as `.other` equals its own case).
    public static func == (lhs: RealtimeControlType, rhs: RealtimeControlType) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire string, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
