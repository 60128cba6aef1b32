import HearthCore

/// Evaluates compiled rule expressions for one check: who asks (`auth`), when (`now`), the data
/// before and after the operation, the query of a read, and where the rule stands.
///
/// One evaluator serves every rule of a check; the walk (`RuleWalk`) moves it along (`captures`,
/// `target`, `depth`). This file holds the dispatch over expression kinds, with variables, logic
/// and `matches` evaluated in place; the other families each have a step in their own extension:
/// `+Values` (member and index access), `+Operators` (comparison, arithmetic, equality),
/// `+Strings` (string methods), `+Snapshots` (snapshot methods and the data they read).
struct Evaluator {
    let auth: RuleValue
    let now: Double
    let before: any RuleDataSource
    let after: Overlay?
    let query: QueryValues
    /// The keys the `$wildcard`s on the way matched, in order: the values of `$name` variables.
    var captures: [String] = []
    /// The rule being evaluated stands at the first `depth` keys of `target` (`data`, `newData`).
    var target = Path.root
    var depth = 0

    /// The rule's location, built only when a rule reads `data` or `newData`.
    var location: Path { depth == target.count ? target : Path(Array(target.keys[..<depth])) }

    init(auth: JSONValue?, now: Int64, before: any RuleDataSource, after: Overlay?, query: QueryValues) {
        self.auth = auth.map(RuleValue.init(json:)) ?? .null
        self.now = Double(now)
        self.before = before
        self.after = after
        self.query = query
    }

    /// Evaluates a rule at `depth` of `target`; errors and non-boolean results are false.
    func check(_ rule: CompiledRule) -> Bool {
        if case .literal(.bool(let b)) = rule.expr { return b }
        guard case .bool(true)? = try? eval(rule.expr) else { return false }
        return true
    }

    /// Evaluates one expression: variables here, every other kind in the step for its family.
    func eval(_ e: Expr) throws(EvaluationError) -> RuleValue {
        switch e {
        case .literal(let v): return v
        case .auth: return auth
        case .now: return .number(now)
        case .root: return .snapshot(RuleSnapshot(side: .before, path: .root))
        case .data: return .snapshot(RuleSnapshot(side: .before, path: location))
        case .newData: return .snapshot(RuleSnapshot(side: .after, path: location))
        case .capture(let i): return .string(captures[i])
        case .queryField(let f): return query.value(f)
        case .member(let base, let name): return try member(name, of: eval(base))
        case .index(let base, let index): return try element(of: eval(base), at: eval(index))
        case .snapshot(let base, let method, let args):
            guard case .snapshot(let s) = try eval(base) else { throw EvaluationError() }
            return try snapshotMethod(method, on: s, args)
        case .string(let base, let method, let args): return try stringMethod(method, on: string(base), args)
        case .matches(let base, let regex): return .bool(regex.matches(try string(base)))
        case .not(let x): return .bool(try !bool(x))
        case .negate(let x): return .number(try -number(x))
        // `&&`, `||` and `?:` evaluate their right side only when it decides.
        case .and(let a, let b): return .bool(try bool(a) ? bool(b) : false)
        case .or(let a, let b): return .bool(try bool(a) ? true : bool(b))
        case .conditional(let c, let a, let b): return try eval(bool(c) ? a : b)
        case .equal(let a, let b, let negated): return .bool(try Evaluator.strictEqual(eval(a), eval(b)) != negated)
        case .compare(let op, let a, let b): return try compare(op, eval(a), eval(b))
        case .arithmetic(let op, let a, let b): return try arithmetic(op, eval(a), eval(b))
        // Only an argument of `hasChildren`, which reads it without evaluating it.
        case .stringList: throw EvaluationError()
        }
    }

    /// Evaluates an expression that must be a boolean; anything else is an error.
    func bool(_ e: Expr) throws(EvaluationError) -> Bool {
        guard case .bool(let b) = try eval(e) else { throw EvaluationError() }
        return b
    }

    /// Evaluates an expression that must be a number; anything else is an error.
    func number(_ e: Expr) throws(EvaluationError) -> Double {
        guard case .number(let n) = try eval(e) else { throw EvaluationError() }
        return n
    }

    /// Evaluates an expression that must be a string; anything else is an error.
    func string(_ e: Expr) throws(EvaluationError) -> String {
        guard case .string(let s) = try eval(e) else { throw EvaluationError() }
        return s
    }
}
