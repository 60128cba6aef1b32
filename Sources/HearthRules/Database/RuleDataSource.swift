public import HearthCore

/// The data the rules read, before a write: the database as the operation finds it.
///
/// Implementations answer from a consistent snapshot (the store's read transaction, or the
/// writer's transaction for writes).
public protocol RuleDataSource {
    /// What is stored at `path`.
    func summary(at path: Path) throws -> NodeSummary
    /// Up to `limit` child keys of `path`, in key order.
    func childKeys(at path: Path, limit: Int) throws -> [Key]
}

/// A whole tree in memory as a `RuleDataSource` (tests, `hearth rules test`).
public struct MemoryRuleData: RuleDataSource, Sendable {
    /// The whole database as the operation finds it.
    public var root: Node

    /// A data source over the tree `root`.
    public init(_ root: Node) { self.root = root }

    /// What `root` holds at `path` (`.absent` when nothing is there); never throws.
    public func summary(at path: Path) throws -> NodeSummary { NodeSummary(root.child(at: path)) }

    /// The first `limit` child keys of `path` in key order (none under a leaf or an absent path); never throws.
    public func childKeys(at path: Path, limit: Int) throws -> [Key] {
        Array(root.child(at: path).children.map(\.0).prefix(limit))
    }
}
