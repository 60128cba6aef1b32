public import HearthCore

/// The body of a data (`d`) or merge (`m`) push: `{"p":<path>,"d":<data>,"t":<tag>}`.
///
/// The server writes these pushes as bytes (``RealtimeMessage/dataPush(path:node:tag:)``,
/// ``RealtimeMessage/mergePush(path:entries:tag:)``); this type is how a client reads them.
public struct RealtimeDataPush: Sendable, Hashable {
    /// The location, as sent (a leading slash is optional).
    public var path: String
    /// The new value (`d`), or relative paths to new values (`m`); `null` when absent.
    public var data: JSONValue
    /// The tag of the filtered listen the push is for; nil for a plain listen.
    public var tag: Int?

    /// A body with these fields.
    public init(path: String, data: JSONValue, tag: Int? = nil) {
        self.path = path
        self.data = data
        self.tag = tag
    }

    /// Reads a push body; throws ``RealtimeBodyError/missingPushPath`` when `p` is not a string.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let path)? = body["p"] else { throw .missingPushPath }
        self.path = path
        data = body["d"] ?? .null
        if case .int(let tag)? = body["t"] { self.tag = Int(exactly: tag) }
    }

    /// The body: `p`, `d`, then `t` when tagged (the same bytes the push writers produce).
    public var body: JSONValue {
        var members = [JSONMember("p", .string(path)), JSONMember("d", data)]
        if let tag { members.append(JSONMember("t", .int(Int64(tag)))) }
        return .object(members)
    }
}
