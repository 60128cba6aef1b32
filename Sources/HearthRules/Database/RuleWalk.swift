import HearthCore

/// A walk down the rule tree along a data path: the root's rules first, then the rules for each key
/// of the path in turn (the key itself where the rules name it, else the level's `$wildcard`), until
/// the path ends or the rules have nothing for the next key.
///
/// Every check walks this way (a read's `.read` rules, a write's `.write` and `.validate` rules,
/// whether a read depends on data), so "the rules on the way to a path" is written once. A walk is
/// a value on the stack: stepping allocates nothing but the captured keys.
///
/// ```swift
/// var walk = RuleWalk(root, along: path)
/// repeat {
///     if let rule = walk.node.read { ... }
/// } while walk.step(capturing: &evaluator.captures)
/// ```
struct RuleWalk {
    /// The path walked along.
    let path: Path
    /// The rules for the first `depth` keys of `path`.
    private(set) var node: RuleNode
    /// How many keys of `path` the walk has passed (0 at the root).
    private(set) var depth = 0

    /// A walk standing at `root`, the rules for the root of the data.
    init(_ root: RuleNode, along path: Path) {
        self.path = path
        node = root
    }

    /// Whether the walk stands at `path` itself.
    var isAtEnd: Bool { depth == path.count }

    /// The data location the walk stands at: the first `depth` keys of `path`.
    var location: Path { isAtEnd ? path : Path(Array(path.keys[..<depth])) }

    /// Steps down to the rules for the next key; where the level's `$wildcard` matches it, the key
    /// is appended to `captures` (the values of the `$name` variables in scope). Returns false,
    /// without moving, at the end of the path or where the rules have nothing for the next key.
    @inline(__always)
    mutating func step(capturing captures: inout [String]) -> Bool {
        guard let next = next() else { return false }
        if next.captures { captures.append(path.keys[depth].string) }
        node = next.node
        depth += 1
        return true
    }

    /// Steps down as ``step(capturing:)`` does, for a walk that evaluates nothing (so needs no captures).
    @inline(__always)
    mutating func step() -> Bool {
        guard let next = next() else { return false }
        node = next.node
        depth += 1
        return true
    }

    /// The rules for the next key, and whether they are the level's wildcard; nil at the end of the path.
    @inline(__always)
    private func next() -> (node: RuleNode, captures: Bool)? {
        depth < path.count ? node.child(path.keys[depth].string) : nil
    }
}

extension Evaluator {
    /// Evaluates the rules `kind` picks (`.read` or `.write`) on the way from `root` to `path`, in
    /// order, until one grants (rules are not filters: the first that grants decides). Returns the
    /// granting rule, or nil and the deepest rule that was false.
    @inline(__always)
    mutating func firstGrant(
        _ kind: (RuleNode) -> CompiledRule?, from root: RuleNode, to path: Path
    ) -> (granted: CompiledRule?, lastFalse: CompiledRule?) {
        target = path
        var walk = RuleWalk(root, along: path)
        var lastFalse: CompiledRule?
        repeat {
            if let rule = kind(walk.node) {
                depth = walk.depth
                if check(rule) { return (rule, lastFalse) }
                lastFalse = rule
            }
        } while walk.step(capturing: &captures)
        return (nil, lastFalse)
    }
}
