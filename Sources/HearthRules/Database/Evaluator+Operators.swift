import HearthCore

extension Evaluator {
    /// `<`, `<=`, `>`, `>=` on two numbers (false when either is NaN) or two strings (by UTF-16
    /// code units, as JavaScript compares); other pairs are an error.
    func compare(_ op: CompareOperator, _ l: RuleValue, _ r: RuleValue) throws(EvaluationError) -> RuleValue {
        let order: Int
        switch (l, r) {
        case (.number(let x), .number(let y)):
            if x.isNaN || y.isNaN { return .bool(false) }
            order = x < y ? -1 : x > y ? 1 : 0
        case (.string(let x), .string(let y)): order = compareUTF16(x, y)
        default: throw EvaluationError()
        }
        switch op {
        case .less: return .bool(order < 0)
        case .lessOrEqual: return .bool(order <= 0)
        case .greater: return .bool(order > 0)
        case .greaterOrEqual: return .bool(order >= 0)
        }
    }

    /// `+ - * / %` on numbers; `+` also joins strings, a number joined printed as JavaScript prints
    /// it. Division and remainder by zero are NaN, not an error.
    func arithmetic(_ op: ArithmeticOperator, _ l: RuleValue, _ r: RuleValue) throws(EvaluationError) -> RuleValue {
        if op == .add {
            switch (l, r) {
            case (.number(let x), .number(let y)): return .number(x + y)
            case (.string(let x), .string(let y)): return .string(x + y)
            case (.string(let x), .number(let y)): return .string(x + JavaScriptNumber.string(y))
            case (.number(let x), .string(let y)): return .string(JavaScriptNumber.string(x) + y)
            default: throw EvaluationError()
            }
        }
        guard case .number(let x) = l, case .number(let y) = r else { throw EvaluationError() }
        switch op {
        case .add: return .number(x + y)
        case .subtract: return .number(x - y)
        case .multiply: return .number(x * y)
        case .divide: return .number(y == 0 ? .nan : x / y)
        case .remainder: return .number(y == 0 ? .nan : x.truncatingRemainder(dividingBy: y))
        }
    }

    /// `===` (and `==`, which the rules language treats the same): same type and same value, with
    /// no conversions; snapshots, objects and arrays equal nothing.
    static func strictEqual(_ a: RuleValue, _ b: RuleValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        // Code units, not canonical equivalence: `e\u{301}` and `é` are different keys in the store.
        case (.string(let x), .string(let y)): return x.utf16.elementsEqual(y.utf16)
        default: return false
        }
    }
}
