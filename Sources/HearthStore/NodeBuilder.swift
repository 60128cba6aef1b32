public import HearthCore

/// Assembles a node from rows that arrive in encoded-path order (depth-first, parents first).
public struct NodeBuilder {
    private struct Frame {
        var key: Key?
        var leaf: Leaf?
        var priority: Leaf?
        var children = Children()

        var node: Node {
            if let leaf { return .leaf(leaf, priority: priority) }
            return Node(.children(children), priority: priority)
        }
    }

    private var stack: [Frame] = [Frame(key: nil)]

    /// A builder for an empty subtree.
    public init() {}

    /// Adds a row at `keys` (relative to the subtree root) with its leaf value (nil for a
    /// priority-only interior row) and priority.
    public mutating func add(_ keys: [Key], leaf: Leaf?, priority: Leaf?) {
        var common = 0
        while common < keys.count, common + 1 < stack.count, stack[common + 1].key == keys[common] { common += 1 }
        popTo(depth: common + 1)
        for (i, key) in keys.enumerated().dropFirst(common) {
            stack.append(Frame(key: key))
            if i == keys.count - 1 {
                stack[stack.count - 1].leaf = leaf
                stack[stack.count - 1].priority = priority
            }
        }
        if keys.isEmpty {
            stack[0].leaf = leaf
            stack[0].priority = priority
        }
    }

    private mutating func popTo(depth: Int) {
        while stack.count > depth {
            let frame = stack.removeLast()
            stack[stack.count - 1].children.appendSorted(frame.key!, frame.node)
        }
    }

    /// The assembled node.
    public mutating func finish() -> Node {
        popTo(depth: 1)
        return stack[0].node
    }
}
