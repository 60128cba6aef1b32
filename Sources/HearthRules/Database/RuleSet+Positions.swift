extension RuleSet {
    /// The 1-based line and column where the rule at `location` (as ``RuleDecision/decidingRule`` names it, e.g.
    /// `/users/$uid/.write`, `/.read`) is written in ``source``: the start of its value (the opening quote of an
    /// expression, or `true`/`false`). Nil when the document has no rule there.
    ///
    /// The console highlights the rule that decided a simulated request with it. The source is parsed again (it
    /// compiled once, so it parses); positions are not kept in the compiled tree, which stays as small as it was.
    public func position(ofRule location: String) -> (line: Int, column: Int)? {
        var parser = RulesSourceParser(source)
        guard let document = try? parser.parseDocument() else { return nil }
        guard var value = Self.member("rules", of: document) else { return nil }
        for segment in location.split(separator: "/", omittingEmptySubsequences: true) {
            guard let next = Self.member(String(segment), of: value) else { return nil }
            value = next
        }
        let error = parser.locator.error("", at: value.offset)
        return (error.line, error.column)
    }

    /// The value of the member `key` of an object (nil for anything else).
    private static func member(_ key: String, of value: SourceValue) -> SourceValue? {
        guard case .object(let members) = value.kind else { return nil }
        return members.first { $0.key == key }?.value
    }
}

extension RuleDecision {
    /// The rule that decided, for people and tools that point at it: the rule that granted, the `.validate` that
    /// failed, or (when nothing granted) the deepest `.read`/`.write` that was false. Nil when no rule stood on the
    /// way (nothing granted and none was false) or nothing was written. `location` is e.g. `/users/$uid/.write`,
    /// `text` the expression as written (`true`/`false` for JSON booleans).
    public var decidingRule: (location: String, text: String)? {
        switch basis {
        case .granted(let rule), .invalid(let rule, _), .notGranted(_, _, let rule?): (rule.location, rule.text)
        case .notGranted(_, _, nil), .nothingWritten: nil
        }
    }
}
