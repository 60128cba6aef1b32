public import HearthCore

/// The body of an `auth` or `gauth` request: `{"cred":<credential>}`, and from an admin SDK acting
/// as someone else `"authvar":{...}` (those claims) or `"noauth":true` (signed out).
public struct RealtimeAuthRequest: Sendable, Hashable {
    /// The ID token, access token or admin credential.
    public var credential: String
    /// The claims an admin credential acts with; only an object counts.
    public var authvar: JSONValue?
    /// Whether an admin credential acts as a signed-out user.
    public var noauth: Bool

    /// A body with these fields.
    public init(credential: String, authvar: JSONValue? = nil, noauth: Bool = false) {
        self.credential = credential
        self.authvar = authvar
        self.noauth = noauth
    }

    /// Reads a request body; throws ``RealtimeBodyError/missingCredential`` (answered `invalid_token`)
    /// when `cred` is not a string.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let credential)? = body["cred"] else { throw .missingCredential }
        self.credential = credential
        if case .object? = body["authvar"] { authvar = body["authvar"] }
        noauth = body["noauth"] == .bool(true)
    }

    /// The body as sent: `cred`, then `authvar` or `noauth` when set.
    public var body: JSONValue {
        var members = [JSONMember("cred", .string(credential))]
        if let authvar { members.append(JSONMember("authvar", authvar)) }
        if noauth { members.append(JSONMember("noauth", .bool(true))) }
        return .object(members)
    }
}
