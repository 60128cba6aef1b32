/// The outcome of ``StorageRules/evaluate(_:)``: allowed or not, and which statement decided.
///
/// Building a decision formats nothing; ``reason`` is built on demand for logs and `--dev`
/// diagnostics. Reasons quote the rules text, never request data (paths, tokens, metadata).
public struct StorageRulesDecision: Sendable, CustomStringConvertible {
    enum Basis: Sendable {
        case granted(StorageAllowRule)
        /// No `match` block covers the path.
        case noMatch(StorageRulesMethod)
        /// Some blocks match but none has an `allow` for the method.
        case noAllow(StorageRulesMethod, matchedBlocks: Int)
        /// Every applicable `allow` was false or failed; `last` is the last one tried.
        case denied(StorageRulesMethod, tried: Int, last: StorageAllowRule, failure: StorageEvalError?)
    }

    /// Whether the request may proceed.
    public let allowed: Bool
    let basis: Basis

    init(_ basis: Basis) {
        self.basis = basis
        if case .granted = basis { allowed = true } else { allowed = false }
    }

    /// The 1-based line of the `allow` statement that granted the request; when denied, of the
    /// last `allow` that was tried (nil when none applied).
    public var line: Int? {
        switch basis {
        case .granted(let rule), .denied(_, _, let rule, _): rule.line
        case .noMatch, .noAllow: nil
        }
    }

    /// Why, e.g. `line 6: allow read: if request.auth != null; (match /b/{bucket}/o/{all=**})
    /// granted get`, or `no match block covers the path for list`.
    public var reason: String {
        switch basis {
        case .granted(let rule):
            return "line \(rule.line): \(rule.text) (match \(rule.matchPath)) granted"
        case .noMatch(let method):
            return "no match block covers the path, so \(method) is denied"
        case .noAllow(let method, let count):
            return "\(count) match block\(count == 1 ? "" : "s") cover\(count == 1 ? "s" : "") the path but none allows \(method)"
        case .denied(let method, let tried, let rule, let failure):
            let outcome = failure.map { "failed: \($0.message)" } ?? "was false"
            let others = tried > 1 ? " (and \(tried - 1) earlier allow\(tried == 2 ? "" : "s") for \(method) did not grant)" : ""
            return "line \(rule.line): \(rule.text) (match \(rule.matchPath)) \(outcome)\(others)"
        }
    }

    /// `allow` or `deny`, then ``reason``.
    public var description: String { (allowed ? "allow: " : "deny: ") + reason }
}
