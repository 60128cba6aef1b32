public import HearthCore

/// The Realtime Database's SSE events (`put`, `patch`, `keep-alive`, `cancel`, `auth_revoked`).
public enum ServerSentEvent {
    /// `event: put` / `event: patch` with `{"path": …, "data": …}`.
    public static func data(_ type: String, path: Path, write: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 128)
        w.bytes.append(contentsOf: "event: \(type)\ndata: ".utf8)
        w.beginObject()
        w.separator(first: true)
        w.key("path")
        w.write(path.description)
        w.separator(first: false)
        w.key("data")
        write(&w)
        w.endObject()
        w.bytes.append(contentsOf: [0x0A, 0x0A])
        return w.bytes
    }

    /// `event: put`: `node` replaces the value at `path` (relative to the stream's location; `/` is the location itself).
    public static func put(path: Path, node: Node, format: RenderFormat) -> [UInt8] {
        data("put", path: path) { $0.write(node, format: format) }
    }

    /// `event: patch`: each entry replaces the value at its path below `path`; an empty node deletes.
    public static func patch(path: Path, entries: [PatchEntry], format: RenderFormat) -> [UInt8] {
        data("patch", path: path) { w in
            w.beginObject()
            for (i, e) in entries.enumerated() {
                w.separator(first: i == 0)
                w.key(e.path.keys.map(\.string).joined(separator: "/"))
                w.write(e.node, format: format)
            }
            w.endObject(empty: entries.isEmpty)
        }
    }

    /// The keep-alive event (`data: null`), sent while a stream is idle so proxies keep it open.
    public static let keepAlive: [UInt8] = Array("event: keep-alive\ndata: null\n\n".utf8)

    /// The stream's credential expired: the payload is raw text, not JSON (admin-python compares it).
    public static let authRevoked: [UInt8] = Array("event: auth_revoked\ndata: credential is no longer valid\n\n".utf8)

    /// `event: cancel` with `reason` as a JSON string: the server ends the stream (for example when the rules now deny the read).
    public static func cancel(_ reason: String) -> [UInt8] {
        var w = JSONWriter()
        w.bytes.append(contentsOf: "event: cancel\ndata: ".utf8)
        w.write(reason)
        w.bytes.append(contentsOf: [0x0A, 0x0A])
        return w.bytes
    }
}
