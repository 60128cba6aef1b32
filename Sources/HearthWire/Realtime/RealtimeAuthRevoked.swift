public import HearthCore

/// The body of an auth-revoked (`ac`) push: `{"s":<status>,"d":<reason>}`.
public struct RealtimeAuthRevoked: Sendable, Hashable {
    /// Why, as a status (`expired_token`, `invalid_token`, …).
    public var status: RealtimeStatus
    /// The explanation, for people.
    public var reason: String

    /// A body with these fields.
    public init(status: RealtimeStatus, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// Reads a push body; never fails: an absent or non-string field reads as `""`.
    public init(body: JSONValue) {
        status = RealtimeStatus(rawValue: body["s"]?.stringValue ?? "")
        reason = body["d"]?.stringValue ?? ""
    }

    /// The body as the server sends it: `s`, then `d`.
    public var body: JSONValue {
        .object([JSONMember("s", .string(status.rawValue)), JSONMember("d", .string(reason))])
    }
}
