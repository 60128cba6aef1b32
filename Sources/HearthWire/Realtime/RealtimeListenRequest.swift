public import HearthCore

/// The body of a listen (`q`, `l`) or unlisten (`n`, `u`) request:
/// `{"p":<path>,"q":<query object>,"t":<tag>,"h":<hash>}`, each but `p` optional.
///
/// The path is kept as sent (the server validates it against its own limits); the query is kept as
/// sent too, so a body encodes back to the same bytes. ``queryObject`` is the form that identifies a
/// listen, ``parsedQuery()`` the query it asks for.
public struct RealtimeListenRequest: Sendable, Hashable {
    /// The location, as sent (`"/users"`; a leading slash is optional).
    public var path: String
    /// The wire query (`q`) as sent; nil when absent. A tagged listen without a filter sends `{}`.
    public var query: JSONValue?
    /// The tag the client numbers a filtered listen's pushes with; only an integer counts.
    public var tag: Int?
    /// The hash of the data the client has cached (`""` for none); listens only.
    public var hash: String?

    /// A body with these fields.
    public init(path: String, query: JSONValue? = nil, tag: Int? = nil, hash: String? = nil) {
        self.path = path
        self.query = query
        self.tag = tag
        self.hash = hash
    }

    /// Reads a request body; throws ``RealtimeBodyError/missingPath`` when `p` is not a string.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let path)? = body["p"] else { throw .missingPath }
        self.path = path
        query = body["q"]
        if case .int(let tag)? = body["t"] { self.tag = Int(exactly: tag) }
        if case .string(let hash)? = body["h"] { self.hash = hash }
    }

    /// The body as sent: `p`, then `q`, `t` and `h` when present.
    public var body: JSONValue {
        var members = [JSONMember("p", .string(path))]
        if let query { members.append(JSONMember("q", query)) }
        if let tag { members.append(JSONMember("t", .int(Int64(tag)))) }
        if let hash { members.append(JSONMember("h", .string(hash))) }
        return .object(members)
    }

    /// The query as a listen's identity: nil when absent, `null` or `{}` (a plain listen); else its
    /// members sorted by name and integral numbers as integers, so an unlisten that spells the same
    /// query differently (`{"l":5.0,"i":"x"}`) still names the same listen.
    public var queryObject: JSONValue? {
        guard let query, query != .null, query != .object([]) else { return nil }
        return Self.canonical(query)
    }

    /// The query asked for (from ``queryObject``); nil for a plain listen. Throws the text the server
    /// answers `failed` with when the query is malformed.
    public func parsedQuery() throws(QueryError) -> Query? {
        guard let object = queryObject else { return nil }
        return try Query(wireObject: object)
    }

    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { JSONMember($0.key, canonical($0.value)) }.sorted { $0.key < $1.key })
        case .array(let items):
            return .array(items.map(canonical))
        case .double(let d):
            if let i = Int64(exactly: d) { return .int(i) }
            return value
        default:
            return value
        }
    }
}
