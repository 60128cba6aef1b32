public import HearthCore

/// The body of a get (`g`) request: `{"p":<path>,"q":<query object>}`.
public struct RealtimeGetRequest: Sendable, Hashable {
    /// The location, as sent.
    public var path: String
    /// The wire query as sent; nil when absent. Clients send `{}` for a plain read.
    public var query: JSONValue?

    /// A body with these fields.
    public init(path: String, query: JSONValue? = nil) {
        self.path = path
        self.query = query
    }

    /// Reads a request body; throws ``RealtimeBodyError/missingPath`` when `p` is not a string.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let path)? = body["p"] else { throw .missingPath }
        self.path = path
        query = body["q"]
    }

    /// The body as sent: `p`, then `q` when present.
    public var body: JSONValue {
        var members = [JSONMember("p", .string(path))]
        if let query { members.append(JSONMember("q", query)) }
        return .object(members)
    }

    /// The query asked for; nil when `q` is absent, `null` or `{}`. Read as a listen's query is
    /// (integral numbers count as integers).
    public func parsedQuery() throws(QueryError) -> Query? {
        try RealtimeListenRequest(path: path, query: query).parsedQuery()
    }
}
