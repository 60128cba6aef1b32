/// One committed write, as listeners see it.
public struct Change: Sendable, Hashable {
    /// What the write did at ``Change/path``.
    public enum Kind: Sendable, Hashable {
        /// The node at `path` was replaced by this value (empty = deleted).
        case put(Node)
        /// Each relative path under `path` was replaced by its value.
        case patch([PatchEntry])
    }

    /// Monotonic per-namespace commit sequence.
    public var sequence: UInt64
    /// The location written.
    public var path: Path
    /// Whether the location was replaced or patched, and with what.
    public var kind: Kind

    /// A change committed as number `sequence` of its namespace.
    public init(sequence: UInt64, path: Path, kind: Kind) {
        self.sequence = sequence
        self.path = path
        self.kind = kind
    }
}

/// One `relative path → value` entry of a multi-path update.
public struct PatchEntry: Sendable, Hashable {
    /// The location, relative to the patched location.
    public var path: Path
    /// The new value there (empty = deleted).
    public var node: Node

    /// An entry replacing the node at `path` by `node`.
    public init(path: Path, node: Node) {
        self.path = path
        self.node = node
    }
}
