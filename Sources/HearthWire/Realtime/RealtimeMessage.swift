public import HearthCore

/// One message of the realtime protocol (version 5), either direction.
///
/// - Control: `{"t":"c","d":{"t":<type>,"d":<payload>}}`
/// - Request (client → server): `{"t":"d","d":{"r":<id>,"a":<action>,"b":<body>}}`
/// - Response (server → client): `{"t":"d","d":{"r":<id>,"b":{"s":<status>,"d":<data>}}}`
/// - Push (server → client): `{"t":"d","d":{"a":<action>,"b":<body>}}`
/// - Fatal error (server → client): `{"t":"d","d":{"error":<text>}}`
public enum RealtimeMessage: Sendable, Hashable {
    /// `t: "c"`: connection control (`h` handshake, `o` pong, `r` reset, `s` shutdown, `e` error text, …) with its payload.
    case control(type: RealtimeControlType, payload: JSONValue)
    /// A client request numbered `id` (`q` listen, `n` unlisten, `p` put, `m` merge, `g` get, `auth`, `o` onDisconnect, …).
    case request(id: Int, action: RealtimeAction, body: JSONValue)
    /// The server's answer to request `id`: a status and data.
    case response(id: Int, status: RealtimeStatus, data: JSONValue)
    /// A server-initiated message (`d` data, `m` merge, `c` listen cancelled, `ac` auth revoked, …).
    case push(action: RealtimePushAction, body: JSONValue)
    /// A fatal error the server sends before closing (`d.error`).
    case error(String)

    /// Parses one reassembled message.
    public init(parsing text: String) throws(RealtimeFramingError) {
        let json: JSONValue
        do {
            json = try JSONReader(maxDepth: 96).parse(Array(text.utf8))
        } catch {
            throw RealtimeFramingError("message is not JSON: \(error.reason)")
        }
        guard case .string(let t)? = json["t"], let d = json["d"] else {
            throw RealtimeFramingError("message lacks the t and d fields")
        }
        switch t {
        case "c":
            guard case .string(let type)? = d["t"] else { throw RealtimeFramingError("control message lacks its type") }
            self = .control(type: RealtimeControlType(rawValue: type), payload: d["d"] ?? .null)
        case "d":
            if case .string(let text)? = d["error"] {
                self = .error(text)
                return
            }
            let body = d["b"] ?? .null
            if let r = d["r"] {
                guard case .int(let id) = r, let id = Int(exactly: id) else { throw RealtimeFramingError("request id must be an integer") }
                if case .string(let action)? = d["a"] {
                    self = .request(id: id, action: RealtimeAction(rawValue: action), body: body)
                } else {
                    guard case .string(let status)? = body["s"] else { throw RealtimeFramingError("response lacks a status") }
                    self = .response(id: id, status: RealtimeStatus(rawValue: status), data: body["d"] ?? .null)
                }
            } else {
                guard case .string(let action)? = d["a"] else { throw RealtimeFramingError("data message lacks an action") }
                self = .push(action: RealtimePushAction(rawValue: action), body: body)
            }
        default:
            throw RealtimeFramingError("unknown message type \(t)")
        }
    }

    /// The message as JSON text.
    public var text: String {
        let envelope: JSONValue
        switch self {
        case .control(let type, let payload):
            envelope = .object([JSONMember("t", .string("c")), JSONMember("d", .object([JSONMember("t", .string(type.rawValue)), JSONMember("d", payload)]))])
        case .request(let id, let action, let body):
            envelope = .object([
                JSONMember("t", .string("d")),
                JSONMember("d", .object([JSONMember("r", .int(Int64(id))), JSONMember("a", .string(action.rawValue)), JSONMember("b", body)])),
            ])
        case .response(let id, let status, let data):
            envelope = .object([
                JSONMember("t", .string("d")),
                JSONMember("d", .object([
                    JSONMember("r", .int(Int64(id))),
                    JSONMember("b", .object([JSONMember("s", .string(status.rawValue)), JSONMember("d", data)])),
                ])),
            ])
        case .push(let action, let body):
            envelope = .object([
                JSONMember("t", .string("d")), JSONMember("d", .object([JSONMember("a", .string(action.rawValue)), JSONMember("b", body)])),
            ])
        case .error(let text):
            envelope = .object([JSONMember("t", .string("d")), JSONMember("d", .object([JSONMember("error", .string(text))]))])
        }
        return envelope.jsonString
    }
}

extension RealtimeMessage {
    /// The handshake the server sends right after the upgrade.
    public static func handshake(timestamp: Int64, host: String, session: String) -> RealtimeMessage {
        .control(type: .handshake, payload: .object([
            JSONMember("ts", .int(timestamp)), JSONMember("v", .string("5")), JSONMember("h", .string(host)),
            JSONMember("s", .string(session)),
        ]))
    }

    /// The answer to a client's ping.
    public static let pong = RealtimeMessage.control(type: .pong, payload: .null)

    /// A `d` (overwrite) push written straight from a node in export format, so a fan-out encodes
    /// each change once without building JSON values.
    public static func dataPush(path: Path, node: Node, tag: Int? = nil) -> [UInt8] {
        pushBytes(action: .data, path: path, tag: tag) { $0.write(node, format: .export) }
    }

    /// An `m` (merge) push: relative paths to their new values (empty = deleted).
    public static func mergePush(path: Path, entries: [PatchEntry], tag: Int? = nil) -> [UInt8] {
        pushBytes(action: .merge, path: path, tag: tag) { w in
            w.beginObject()
            for (i, e) in entries.enumerated() {
                w.separator(first: i == 0)
                w.key(e.path.keys.map(\.string).joined(separator: "/"))
                w.write(e.node, format: .export)
            }
            w.endObject(empty: entries.isEmpty)
        }
    }

    /// An `ok` response carrying a node in export format (a `g` answer), written straight from the
    /// node.
    public static func dataResponse(id: Int, node: Node) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 128)
        w.bytes.append(contentsOf: #"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":"#.utf8)
        w.write(node, format: .export)
        w.bytes.append(contentsOf: "}}}".utf8)
        return w.bytes
    }

    static func pushBytes(action: RealtimePushAction, path: Path, tag: Int?, data: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 128)
        w.bytes.append(contentsOf: #"{"t":"d","d":{"a":""#.utf8)
        w.bytes.append(contentsOf: action.rawValue.utf8)
        w.bytes.append(contentsOf: #"","b":{"p":"#.utf8)
        w.write(path.keys.map(\.string).joined(separator: "/"))
        w.bytes.append(contentsOf: #","d":"#.utf8)
        data(&w)
        if let tag { w.bytes.append(contentsOf: #","t":\#(tag)"#.utf8) }
        w.bytes.append(contentsOf: "}}}".utf8)
        return w.bytes
    }
}
