/// One committed write, as listeners see it.
public struct Change: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The node at `path` was replaced by this value (empty = deleted).
        case put(Node)
        /// Each relative path under `path` was replaced by its value.
        case patch([PatchEntry])
    }

    /// Monotonic per-namespace commit sequence.
    public var sequence: UInt64
    public var path: Path
    public var kind: Kind

    public init(sequence: UInt64, path: Path, kind: Kind) {
        self.sequence = sequence
        self.path = path
        self.kind = kind
    }
}

/// One `relative path → value` entry of a multi-path update.
public struct PatchEntry: Sendable, Hashable {
    public var path: Path
    public var node: Node

    public init(path: Path, node: Node) {
        self.path = path
        self.node = node
    }
}
