/// What is at one location, without its descendants: enough for rules (`exists()`, `val()`,
/// `hasChildren()`, `getPriority()`) and cheap for a store to answer.
public enum NodeSummary: Sendable, Hashable {
    /// Nothing is stored here.
    case absent
    /// A primitive value, with the node's priority.
    case leaf(Leaf, priority: Leaf?)
    /// Children exist (not listed), with the node's priority.
    case object(priority: Leaf?)

    /// The summary of a whole node.
    public init(_ node: Node) {
        switch node.content {
        case .empty: self = .absent
        case .leaf(let l): self = .leaf(l, priority: node.priority)
        case .children: self = .object(priority: node.priority)
        }
    }

    /// The priority of the location; nil when absent or unset.
    public var priority: Leaf? {
        switch self {
        case .absent: nil
        case .leaf(_, let p), .object(let p): p
        }
    }
}
