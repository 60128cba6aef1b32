public import HearthCore

/// What a rule expression evaluates to.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// `val()` of a node with children: non-null, equal to nothing.
    case opaqueObject
    /// `auth`, `auth.token` and nested claim objects.
    case map([JSONMember])
    case list([JSONValue])
    case snapshot(RuleSnapshot)

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .object(let m): self = .map(m)
        case .array(let a): self = .list(a)
        }
    }

    init(leaf: Leaf?) {
        switch leaf {
        case nil: self = .null
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .number(Double(i))
        case .double(let d)?: self = .number(d)
        case .string(let s)?: self = .string(s)
        }
    }
}

/// A rules snapshot: a location in the data before (`root`, `data`) or after (`newData`) a write.
struct RuleSnapshot: Sendable {
    enum Side: Sendable { case before, after }
    var side: Side
    var path: Path
}

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
