import HearthCore

/// What the compiler knows about an expression's type.
enum StaticType: Equatable {
    case boolean, number, string, null, snapshot, map, any, query, regex, list

    var name: String {
        switch self {
        case .boolean: "boolean"
        case .number: "number"
        case .string: "string"
        case .null: "null"
        case .snapshot: "snapshot"
        case .map: "object"
        case .any: "value"
        case .query: "query"
        case .regex: "regular expression"
        case .list: "array"
        }
    }
}

/// Which variables a rule may use where it stands.
struct ExpressionScope {
    var captures: [String]
    var allowsNewData: Bool
    var allowsQuery: Bool
}

/// A recursive-descent parser for one rule expression. Errors are located in the document through
/// the string's scalar offsets.
struct ExpressionParser {
    let scalars: [Unicode.Scalar]
    let offsets: [Int]
    private let locator: SourceLocator
    private let scope: ExpressionScope
    var i = 0
    private var depth = 0
    /// Set when the expression reads `root`, `data` or `newData`.
    private(set) var readsData = false

    static let maxDepth = 200

    init(text: String, offsets: [Int], locator: SourceLocator, scope: ExpressionScope) {
        scalars = Array(text.unicodeScalars)
        self.offsets = offsets
        self.locator = locator
        self.scope = scope
    }

    func fail(_ message: String, at position: Int? = nil) -> RulesError {
        let p = min(position ?? i, offsets.count - 1)
        return locator.error(message, at: offsets.isEmpty ? 0 : offsets[max(p, 0)])
    }

    mutating func parseRule() throws(RulesError) -> Expr {
        skipSpace()
        if i == scalars.count { throw fail("Empty expression") }
        let (expr, type) = try parseConditional()
        skipSpace()
        if i < scalars.count {
            if scalars[i] == ";" { throw fail("Statements are not allowed; a rule is one expression") }
            throw fail("Unexpected '\(scalars[i])'")
        }
        guard type == .boolean || type == .any else {
            throw fail("Expression must evaluate to a boolean, not a \(type.name)", at: 0)
        }
        return expr
    }

    // MARK: Lexing helpers

    mutating func skipSpace() {
        while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" || scalars[i] == "\n" || scalars[i] == "\r" { i += 1 }
    }

    mutating func take(_ op: String) -> Bool {
        skipSpace()
        let s = Array(op.unicodeScalars)
        guard scalars.count - i >= s.count, Array(scalars[i..<i + s.count]) == s else { return false }
        // Unary `!` must not take the start of `!=`; longer operators are always tried first.
        if op == "!", i + 1 < scalars.count, scalars[i + 1] == "=" { return false }
        i += s.count
        return true
    }

    mutating func expect(_ op: String) throws(RulesError) {
        guard take(op) else {
            skipSpace()
            throw fail(i < scalars.count ? "Expected '\(op)' but found '\(scalars[i])'" : "Expected '\(op)' before the end")
        }
    }

    // MARK: Grammar

    private mutating func nested<T>(_ body: (inout ExpressionParser) throws(RulesError) -> T) throws(RulesError) -> T {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth { throw fail("Expression is nested too deeply") }
        return try body(&self)
    }

    mutating func parseConditional() throws(RulesError) -> (Expr, StaticType) {
        try nested { (p: inout ExpressionParser) throws(RulesError) in
            let start = p.i
            let (condition, ct) = try p.parseOr()
            guard p.take("?") else { return (condition, ct) }
            try p.requireBoolean(ct, at: start, "The condition of ?:")
            let (a, at) = try p.parseConditional()
            try p.expect(":")
            let (b, bt) = try p.parseConditional()
            // Branches of different types: the rule is only as good as its less boolean branch.
            let type: StaticType = at == bt ? at : (at == .any || bt == .any) ? .any : (at != .boolean ? at : bt)
            return (.conditional(condition, a, b), type)
        }
    }

    private mutating func requireBoolean(_ t: StaticType, at position: Int, _ what: String) throws(RulesError) {
        guard t == .boolean || t == .any else { throw fail("\(what) must be a boolean, not a \(t.name)", at: position) }
    }

    private mutating func parseOr() throws(RulesError) -> (Expr, StaticType) {
        try parseLogical("||", operand: { (p: inout ExpressionParser) throws(RulesError) in try p.parseAnd() }, combine: Expr.or)
    }

    private mutating func parseAnd() throws(RulesError) -> (Expr, StaticType) {
        try parseLogical("&&", operand: { (p: inout ExpressionParser) throws(RulesError) in try p.parseEquality() }, combine: Expr.and)
    }

    /// `a op b op c …` for `&&` and `||`: every operand must be boolean.
    private mutating func parseLogical(
        _ op: String, operand: (inout ExpressionParser) throws(RulesError) -> (Expr, StaticType), combine: (Expr, Expr) -> Expr
    ) throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        var (lhs, lt) = try operand(&self)
        while take(op) {
            try requireBoolean(lt, at: start, "The left side of \(op)")
            skipSpace()
            let r = i
            let (rhs, rt) = try operand(&self)
            try requireBoolean(rt, at: r, "The right side of \(op)")
            lhs = combine(lhs, rhs)
            lt = .boolean
        }
        return (lhs, lt)
    }

    private mutating func parseEquality() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        var (lhs, lt) = try parseRelational()
        while true {
            let negated: Bool
            if take("===") || take("==") {
                negated = false
            } else if take("!==") || take("!=") {
                negated = true
            } else {
                break
            }
            skipSpace()
            let r = i
            let (rhs, rt) = try parseRelational()
            for (t, at) in [(lt, start), (rt, r)] where [.snapshot, .query, .regex, .list].contains(t) {
                throw fail("A \(t.name) cannot be compared with == or != (use val() or exists())", at: at)
            }
            lhs = .equal(lhs, rhs, negated: negated)
            lt = .boolean
        }
        return (lhs, lt)
    }

    private mutating func parseRelational() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        var (lhs, lt) = try parseAdditive()
        while true {
            let op: CompareOperator
            if take("<=") {
                op = .lessOrEqual
            } else if take(">=") {
                op = .greaterOrEqual
            } else if take("<") {
                op = .less
            } else if take(">") {
                op = .greater
            } else {
                break
            }
            skipSpace()
            let r = i
            let (rhs, rt) = try parseAdditive()
            for (t, at) in [(lt, start), (rt, r)] where ![.number, .string, .any, .null].contains(t) {
                throw fail("A \(t.name) cannot be ordered with < or >", at: at)
            }
            lhs = .compare(op, lhs, rhs)
            lt = .boolean
        }
        return (lhs, lt)
    }

    private mutating func parseAdditive() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        var (lhs, lt) = try parseMultiplicative()
        while true {
            let op: ArithmeticOperator
            if take("+") {
                op = .add
            } else if take("-") {
                op = .subtract
            } else {
                break
            }
            skipSpace()
            let r = i
            let (rhs, rt) = try parseMultiplicative()
            try requireArithmetic(lt, at: start)
            try requireArithmetic(rt, at: r)
            lhs = .arithmetic(op, lhs, rhs)
            if op == .subtract {
                lt = .number
            } else if lt == .string || rt == .string {
                lt = .string
            } else if lt == .number && rt == .number {
                lt = .number
            } else {
                lt = .any
            }
        }
        return (lhs, lt)
    }

    private mutating func requireArithmetic(_ t: StaticType, at position: Int) throws(RulesError) {
        if [.snapshot, .query, .regex, .list, .boolean].contains(t) {
            throw fail("A \(t.name) cannot be used in arithmetic", at: position)
        }
    }

    private mutating func parseMultiplicative() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        var (lhs, lt) = try parseUnary()
        while true {
            let op: ArithmeticOperator
            if take("*") {
                op = .multiply
            } else if take("/") {
                op = .divide
            } else if take("%") {
                op = .remainder
            } else {
                break
            }
            skipSpace()
            let r = i
            let (rhs, rt) = try parseUnary()
            try requireArithmetic(lt, at: start)
            try requireArithmetic(rt, at: r)
            lhs = .arithmetic(op, lhs, rhs)
            lt = .number
        }
        return (lhs, lt)
    }

    private mutating func parseUnary() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        let start = i
        if take("!") {
            let (e, t) = try nested { (p: inout ExpressionParser) throws(RulesError) in try p.parseUnary() }
            try requireBoolean(t, at: start + 1, "The operand of !")
            return (.not(e), .boolean)
        }
        if take("-") {
            let (e, t) = try nested { (p: inout ExpressionParser) throws(RulesError) in try p.parseUnary() }
            try requireArithmetic(t, at: start + 1)
            if t == .string { throw fail("A string cannot be negated", at: start + 1) }
            return (.negate(e), .number)
        }
        return try parsePostfix()
    }

    mutating func identifier() -> String? {
        let start = i
        while i < scalars.count {
            let c = scalars[i]
            let ok = c == "_" || c == "$" || (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (i > start && c >= "0" && c <= "9")
            if !ok { break }
            i += 1
        }
        return i > start ? String(String.UnicodeScalarView(scalars[start..<i])) : nil
    }

    mutating func parsePrimary() throws(RulesError) -> (Expr, StaticType) {
        skipSpace()
        guard i < scalars.count else { throw fail("Unexpected end of the expression") }
        let start = i
        let c = scalars[i]
        if c == "(" {
            i += 1
            let inner = try parseConditional()
            try expect(")")
            return inner
        }
        if c == "'" || c == "\"" { return (.literal(.string(try stringLiteral())), .string) }
        if (c >= "0" && c <= "9") || (c == "." && i + 1 < scalars.count && scalars[i + 1] >= "0" && scalars[i + 1] <= "9") {
            return (.literal(.number(try numberLiteral())), .number)
        }
        if c == "[" { throw fail("Array literals are only allowed as the argument of hasChildren()") }
        if c == "/" { throw fail("Regular expressions are only allowed as the argument of matches()") }
        guard let name = identifier() else { throw fail("Unexpected '\(c)'") }
        switch name {
        case "true": return (.literal(.bool(true)), .boolean)
        case "false": return (.literal(.bool(false)), .boolean)
        case "null": return (.literal(.null), .null)
        case "auth": return (.auth, .map)
        case "now": return (.now, .number)
        case "root":
            readsData = true
            return (.root, .snapshot)
        case "data":
            readsData = true
            return (.data, .snapshot)
        case "newData":
            guard scope.allowsNewData else { throw fail("newData is only available in .write and .validate rules", at: start) }
            readsData = true
            return (.newData, .snapshot)
        case "query":
            guard scope.allowsQuery else { throw fail("query is only available in .read rules", at: start) }
            return (.literal(.null), .query)
        default:
            if name.hasPrefix("$") {
                guard let index = scope.captures.lastIndex(of: name) else {
                    throw fail("Unknown variable \(name): no \(name) wildcard above this rule", at: start)
                }
                return (.capture(index), .string)
            }
            throw fail("Unknown variable '\(name)'", at: start)
        }
    }
}
