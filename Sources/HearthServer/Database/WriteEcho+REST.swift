import HearthCore
import HearthStore

extension WriteEcho {
    /// The body a REST write answers with: the value written, `{"name": key}` for a push, and for a
    /// multi-path update an object keyed by the relative paths (`a/b`, `a/.priority`).
    var restBody: [UInt8] {
        switch self {
        case .value(let node):
            return node.jsonBytes()
        case .pushed(let key):
            return JSONValue.object([JSONMember("name", .string(key.string))]).jsonBytes
        case .priority(let priority):
            return (priority?.json ?? .null).jsonBytes
        case .update(let entries, let priorities):
            var w = JSONWriter()
            w.beginObject()
            for (i, entry) in entries.enumerated() {
                w.separator(first: i == 0)
                w.key(entry.path.keys.map(\.string).joined(separator: "/"))
                w.write(entry.node, format: .plain)
            }
            for (i, p) in priorities.enumerated() {
                w.separator(first: i == 0 && entries.isEmpty)
                w.key((p.path.keys.map(\.string) + [".priority"]).joined(separator: "/"))
                if let value = p.priority { w.write(value) } else { w.writeNull() }
            }
            w.endObject(empty: entries.isEmpty && priorities.isEmpty)
            return w.bytes
        }
    }
}
