/// What is at one location, without its descendants: enough for rules (`exists()`, `val()`,
/// `hasChildren()`, `getPriority()`) and cheap for a store to answer.
public enum NodeSummary: Sendable, Hashable {
    case absent
    case leaf(Leaf, priority: Leaf?)
    case object(priority: Leaf?)

    public init(_ node: Node) {
        switch node.content {
        case .empty: self = .absent
        case .leaf(let l): self = .leaf(l, priority: node.priority)
        case .children: self = .object(priority: node.priority)
        }
    }

    public var priority: Leaf? {
        switch self {
        case .absent: nil
        case .leaf(_, let p), .object(let p): p
        }
    }
}
