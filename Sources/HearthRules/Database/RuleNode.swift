/// One level of the compiled rule tree: the rules at a location, the levels under it by key, and
/// the level's `$wildcard`, which stands for every key not named. Immutable once built.
final class RuleNode: Sendable {
    let location: String
    let read: CompiledRule?
    let write: CompiledRule?
    let validate: CompiledRule?
    let children: [String: RuleNode]
    let wildcard: RuleNode?
    let wildcardName: String?

    init(
        location: String, read: CompiledRule?, write: CompiledRule?, validate: CompiledRule?,
        children: [String: RuleNode], wildcard: RuleNode?, wildcardName: String?
    ) {
        self.location = location
        self.read = read
        self.write = write
        self.validate = validate
        self.children = children
        self.wildcard = wildcard
        self.wildcardName = wildcardName
    }

    /// The rule node for a data key: a literal match first, else the wildcard (which captures).
    @inline(__always)
    func child(_ key: String) -> (node: RuleNode, captures: Bool)? {
        if let c = children[key] { return (c, false) }
        if let w = wildcard { return (w, true) }
        return nil
    }
}
