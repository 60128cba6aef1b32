import HearthCore

extension Evaluator {
    /// `a.b`: a claim of `auth` or a member of a nested claim object, or a string's `length` (in
    /// UTF-16 code units, as JavaScript counts). A member of null is null, as a missing claim is.
    func member(_ name: String, of base: RuleValue) throws(EvaluationError) -> RuleValue {
        switch base {
        case .null: return .null
        case .map(let members): return members.first { $0.key == name }.map { RuleValue(json: $0.value) } ?? .null
        case .string(let s) where name == "length": return .number(Double(s.utf16.count))
        default: throw EvaluationError()
        }
    }

    /// `a[b]`: a member of a claim object by name, or an element of a claim array by a whole,
    /// in-range number (anything else is null). An index into null is null.
    func element(of base: RuleValue, at index: RuleValue) throws(EvaluationError) -> RuleValue {
        switch (base, index) {
        case (.null, _): return .null
        case (.map(let members), .string(let k)): return members.first { $0.key == k }.map { RuleValue(json: $0.value) } ?? .null
        case (.list(let items), .number(let n)):
            guard n >= 0, n < Double(items.count), n == n.rounded() else { return .null }
            return RuleValue(json: items[Int(n)])
        default: throw EvaluationError()
        }
    }
}
