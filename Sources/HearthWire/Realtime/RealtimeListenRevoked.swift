public import HearthCore

/// The body of a listen-revoked (`c`) push: `{"p":<path>,"q":[<query object>]}`, `q` only for a
/// filtered listen.
public struct RealtimeListenRevoked: Sendable, Hashable {
    /// The listen's location, as the server spells it.
    public var path: String
    /// The listen's wire query; nil for a plain listen.
    public var query: JSONValue?

    /// A body with these fields.
    public init(path: String, query: JSONValue? = nil) {
        self.path = path
        self.query = query
    }

    /// Reads a push body; throws ``RealtimeBodyError/missingPushPath`` when `p` is not a string. A
    /// `q` array gives its first query; a bare object is accepted too; `null` is no query.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let path)? = body["p"] else { throw .missingPushPath }
        self.path = path
        switch body["q"] {
        case nil, .null?: query = nil
        case .array(let queries)?: query = queries.first.flatMap { $0 == .null ? nil : $0 }
        case let object?: query = object
        }
    }

    /// The body as the server sends it: `p`, then `q` (an array of the one query) when filtered.
    public var body: JSONValue {
        var members = [JSONMember("p", .string(path))]
        if let query { members.append(JSONMember("q", .array([query]))) }
        return .object(members)
    }
}
