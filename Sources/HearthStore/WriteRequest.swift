public import HearthCore

/// A write to apply in the namespace's serial writer.
public struct WriteRequest: Sendable {
    public enum Operation: Sendable {
        /// PUT / DELETE: replace the node at the path.
        case set(ParsedWrite)
        /// POST: add the value as a new child of the path, named by a push id that the writer
        /// generates when it applies the write, so push ids sort in commit order. The echoed body
        /// is `{"name": id}`.
        case push(ParsedWrite)
        /// PATCH: replace each relative path (no two may overlap), then set the listed priorities
        /// (`"a/.priority": 3` entries).
        case update([(path: Path, value: ParsedWrite)], priorities: [(path: Path, priority: Leaf?)] = [])
        /// PUT to `…/.priority`.
        case setPriority(Leaf?, placeholder: ServerValue?)
    }

    public var path: Path
    public var operation: Operation
    /// `if-match`: write only if the current ETag of `path` equals this.
    public var ifMatch: String?
    /// Whether the caller wants the new ETag.
    public var wantsETag: Bool

    public init(path: Path, operation: Operation, ifMatch: String? = nil, wantsETag: Bool = false) {
        self.path = path
        self.operation = operation
        self.ifMatch = ifMatch
        self.wantsETag = wantsETag
    }
}

/// What happened to a `WriteRequest`.
public enum WriteOutcome: Sendable, Hashable {
    /// Committed. `body` is the resolved written value as JSON (for PATCH, an object keyed by the
    /// relative paths), ready to echo.
    case committed(body: [UInt8], etag: String?)
    /// `if-match` did not match: the current value and its ETag.
    case preconditionFailed(current: Node, etag: String)
}

extension Node {
    /// The ETag of a location: its hash, or `null_etag` when empty.
    public var etag: String { isEmpty ? "null_etag" : hash }
}
