public import HearthCore

/// The body of a write: put (`p`), merge (`m`) and the onDisconnect operations (`o`, `om`, `oc`):
/// `{"p":<path>,"d":<data>,"h":<hash>}`.
///
/// What `d` must be depends on the action (any value for a put, an object of relative paths for a
/// merge, `null` for a cancel); the server checks that where it applies the write.
public struct RealtimeWriteRequest: Sendable, Hashable {
    /// The location, as sent (a put's may end in `/.priority`).
    public var path: String
    /// The value, or the relative paths and values of a merge; `null` when absent.
    public var data: JSONValue
    /// A transaction's expected hash of the current data (`""` for none); puts only.
    public var hash: String?

    /// A body with these fields.
    public init(path: String, data: JSONValue, hash: String? = nil) {
        self.path = path
        self.data = data
        self.hash = hash
    }

    /// Reads a request body; throws ``RealtimeBodyError/missingPath`` when `p` is not a string.
    public init(body: JSONValue) throws(RealtimeBodyError) {
        guard case .string(let path)? = body["p"] else { throw .missingPath }
        self.path = path
        data = body["d"] ?? .null
        if case .string(let hash)? = body["h"] { self.hash = hash }
    }

    /// The body as sent: `p`, `d`, then `h` when present.
    public var body: JSONValue {
        var members = [JSONMember("p", .string(path)), JSONMember("d", data)]
        if let hash { members.append(JSONMember("h", .string(hash))) }
        return .object(members)
    }
}
