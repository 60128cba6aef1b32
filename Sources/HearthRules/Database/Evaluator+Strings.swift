extension Evaluator {
    /// A string method on `s`. The parser has checked the number of arguments; each must be a string.
    func stringMethod(_ method: StringMethod, on s: String, _ args: [Expr]) throws(EvaluationError) -> RuleValue {
        switch method {
        // On UTF-16 code units, as JavaScript: Swift's Character comparisons would treat
        // "admin\u{301}" as not containing "admin" and "e\u{301}" as equal to "é", which
        // lets values slip past block-lists and equality checks.
        case .contains: return .bool(RuleStrings.range(of: try string(args[0]), in: s) != nil)
        case .beginsWith: return .bool(s.utf16.starts(with: try string(args[0]).utf16))
        case .endsWith: return .bool(s.utf16.reversed().starts(with: try string(args[0]).utf16.reversed()))
        case .replace:
            let target = try string(args[0])
            return .string(RuleStrings.replacingAll(target, with: try string(args[1]), in: s))
        case .toLowerCase: return .string(s.lowercased())
        case .toUpperCase: return .string(s.uppercased())
        }
    }
}
