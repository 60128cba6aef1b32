import HearthCore
import HearthStore

/// How a committed change is stored in the change log, for the other nodes to replay:
/// `{"p":["users","ada"],"put":V}` or `{"p":[…],"patch":[[["name"],V],…]}`, with each value `V` in
/// the export format (priorities kept).
enum ChangeCoding {
    static func encode(_ change: Change) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("p")
        writeKeys(change.path, to: &w)
        switch change.kind {
        case .put(let node):
            w.separator(first: false)
            w.key("put")
            w.write(node, format: .export)
        case .patch(let entries):
            w.separator(first: false)
            w.key("patch")
            w.beginArray()
            for (i, entry) in entries.enumerated() {
                w.separator(first: i == 0)
                w.beginArray()
                writeKeys(entry.path, to: &w)
                w.separator(first: false)
                w.write(entry.node, format: .export)
                w.endArray()
            }
            w.endArray(empty: entries.isEmpty)
        }
        w.endObject()
        return w.bytes
    }

    private static func writeKeys(_ path: Path, to w: inout JSONWriter) {
        w.beginArray()
        for (i, key) in path.keys.enumerated() {
            w.separator(first: i == 0)
            w.write(key.string)
        }
        w.endArray(empty: path.isRoot)
    }

    static func decode(_ bytes: [UInt8], sequence: UInt64) throws -> Change {
        let json = try bytes.withUnsafeBytes { try JSONValue.parse($0) }
        guard case .array(let keys)? = json["p"] else { throw malformed }
        let path = try self.path(keys)
        if let value = json["put"] {
            return Change(sequence: sequence, path: path, kind: .put(try Node(json: value)))
        }
        guard case .array(let list)? = json["patch"] else { throw malformed }
        var entries: [PatchEntry] = []
        for item in list {
            guard case .array(let pair) = item, pair.count == 2, case .array(let keys) = pair[0] else { throw malformed }
            entries.append(PatchEntry(path: try self.path(keys), node: try Node(json: pair[1])))
        }
        return Change(sequence: sequence, path: path, kind: .patch(entries))
    }

    private static func path(_ keys: [JSONValue]) throws -> Path {
        var out: [Key] = []
        for key in keys {
            guard case .string(let s) = key else { throw malformed }
            out.append(Key(s))
        }
        return Path(out)
    }

    static var malformed: PostgresStoreError { PostgresStoreError(sqlState: nil, message: "a change log entry is malformed") }
}

/// A notification sent on ``channel`` at commit: `<last sequence> <namespace>` after changes to
/// the tree, `settings <namespace>` after a setting (the rules) was stored.
enum ChangeNotice: Sendable, Hashable {
    static let channel = "hearth_changes"
    case changes(namespace: String, sequence: UInt64)
    case settings(String)

    var text: String {
        switch self {
        case .changes(let namespace, let sequence): "\(sequence) \(namespace)"
        case .settings(let namespace): "settings \(namespace)"
        }
    }

    init?(_ text: String) {
        guard let space = text.firstIndex(of: " ") else { return nil }
        let head = text[..<space]
        let namespace = String(text[text.index(after: space)...])
        if head == "settings" {
            self = .settings(namespace)
        } else if let sequence = UInt64(head) {
            self = .changes(namespace: namespace, sequence: sequence)
        } else {
            return nil
        }
    }
}
