import HearthCore

/// A local write the server has not acknowledged yet. Applied optimistically on top of server data.
struct PendingWrite: Sendable {
    enum Operation: Sendable, Hashable {
        /// `p`: the raw JSON as sent (may contain `{".sv": …}` placeholders).
        case set(JSONValue)
        /// `m`: relative paths → raw JSON.
        case merge([JSONMember])
    }

    var id: Int64
    var path: Path
    var operation: Operation
    /// A transaction's compare-and-set hash (`p` with `h`).
    var hash: String?
    /// Written to the persistent queue (transactions are not: their update closure dies with the process).
    var durable: Bool
    /// The value(s) shown locally: absolute path → node, server values estimated.
    var resolved: [(Path, Node)]
    /// The server accepted it. It stays applied locally while a listen it touches has not received the server's
    /// data since (made or re-sent after the write, or its socket dropped): their cached data may predate it.
    var acknowledged = false

    /// Applies this write to `node`, which is the data at `location`. Returns whether the write
    /// replaced the whole location (so the result is complete even without server data).
    func apply(to node: inout Node, at location: Path) -> Bool {
        var covered = false
        for (target, value) in resolved {
            if let rel = target.relative(location) {
                node = value.child(at: rel)
                covered = true
            } else if let rel = location.relative(target) {
                node = node.setting(rel, to: value)
            }
        }
        return covered
    }

    /// True when this write and `location` overlap (one is at or below the other).
    func touches(_ location: Path) -> Bool {
        resolved.contains { $0.0.isAncestor(ofOrEqualTo: location) || location.isAncestor(ofOrEqualTo: $0.0) }
    }

    /// True when the two writes change some location in common.
    func overlaps(_ other: PendingWrite) -> Bool {
        other.resolved.contains { touches($0.0) }
    }
}
