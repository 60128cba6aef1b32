import HearthCore

/// The outcome of a rules check, with what decided it (for `--dev` diagnostics; never shown in
/// production). Building a decision allocates nothing; `reason` formats on demand.
public struct RuleDecision: Sendable {
    enum Basis: Sendable {
        /// This rule granted.
        case granted(CompiledRule)
        /// Nothing granted; `lastFalse` is the deepest rule that evaluated false, if any.
        case notGranted(operation: StaticString, path: Path, lastFalse: CompiledRule?)
        /// A `.validate` failed at a location.
        case invalid(CompiledRule, at: Path)
        /// An empty multi-path update: nothing to check.
        case nothingWritten
    }

    /// Whether the operation may go ahead; ``reason`` says why, either way.
    public let allowed: Bool
    let basis: Basis

    /// Which rule decided, e.g. `/users/$uid/.write: auth.uid === $uid`, or why nothing granted.
    public var reason: String {
        switch basis {
        case .granted(let rule): return "\(rule.location): \(rule.text)"
        case .notGranted(let operation, let path, let lastFalse?):
            return "no .\(operation) rule granted \(path); \(lastFalse.location): \(lastFalse.text) was false"
        case .notGranted(let operation, let path, nil):
            return "no .\(operation) rule on the way to \(path)"
        case .invalid(let rule, let path):
            return "\(rule.location): \(rule.text) failed at \(path)"
        case .nothingWritten:
            return "nothing is written"
        }
    }
}
