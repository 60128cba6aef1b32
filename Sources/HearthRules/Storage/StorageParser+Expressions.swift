/// Expressions, loosest binding first:
/// `?:` (right), `||`, `&&`, `== != < <= > >= in is`, `+ -`, `* / %`, unary `! -`,
/// then `.name`, `.name(args)`, `[i]`, `[i:j]` and primaries.
///
/// Binary operators are parsed by one loop with an explicit stack of open operator runs (not one
/// recursive function per precedence level), and same-precedence runs become one
/// `chain`/`and`/`or` node. Every nesting step (parentheses, unary operators, postfix operators,
/// arguments, literals) counts against `maxExpressionDepth`. Together this bounds both the tree
/// depth and the parser's own recursion, which matters on small thread stacks.
extension StorageParser {
    mutating func expression(depth: Int) throws(RulesError) -> StorageExpr {
        guard depth <= StorageLimits.maxExpressionDepth else {
            throw error("Expression nested deeper than \(StorageLimits.maxExpressionDepth) levels")
        }
        let condition = try binary(depth: depth)
        guard isSymbol(.question) else { return condition }
        try advance()
        let then = try expression(depth: depth + 1)
        try expect(.colon, "in a conditional expression (a ? b : c)")
        let otherwise = try expression(depth: depth + 1)
        return .conditional(condition, then, otherwise)
    }

    /// A binary operator at the current token: its precedence level (1 `||` … 5 `* / %`).
    private enum Operator {
        case or, and, `is`
        case binary(StorageBinaryOperator)

        var level: Int {
            switch self {
            case .or: 1
            case .and: 2
            case .is: 3
            case .binary(let op):
                switch op {
                case .add, .subtract: 4
                case .multiply, .divide, .remainder: 5
                default: 3
                }
            }
        }
    }

    /// A run of operators of one level still waiting for its last operand.
    private struct OpenRun {
        let level: Int
        var operands: [StorageExpr]
        var operators: [StorageBinaryOperator]

        /// The finished run, `last` being its final operand.
        func closed(with last: StorageExpr) -> StorageExpr {
            switch level {
            case 1: return .or(operands + [last])
            case 2: return .and(operands + [last])
            default:
                let rest = Array(operands.dropFirst()) + [last]
                return .chain(operands[0], zip(operators, rest).map { (op: $0, operand: $1) })
            }
        }
    }

    private static let symbolOperators: [StorageToken.Symbol: StorageBinaryOperator] = [
        .eq: .equal, .ne: .notEqual, .lt: .less, .le: .lessOrEqual, .gt: .greater, .ge: .greaterOrEqual,
        .plus: .add, .minus: .subtract, .star: .multiply, .slash: .divide, .percent: .remainder,
    ]

    private func currentOperator() -> Operator? {
        switch token.kind {
        case .symbol(.or): return .or
        case .symbol(.and): return .and
        case .symbol(let s): return Self.symbolOperators[s].map(Operator.binary)
        case .identifier("in"): return .binary(.in)
        case .identifier("is"): return .is
        default: return nil
        }
    }

    private mutating func binary(depth: Int) throws(RulesError) -> StorageExpr {
        var open: [OpenRun] = []
        var operand = try unary(depth: depth)
        while let op = currentOperator() {
            let level = op.level
            while let top = open.last?.level, top > level { operand = open.removeLast().closed(with: operand) }
            try advance()
            if case .is = op {
                // `x is T` applies to the comparison so far: `a == b is bool` is `(a == b) is bool`.
                if open.last?.level == level { operand = open.removeLast().closed(with: operand) }
                guard case .identifier(let name) = token.kind, let type = StorageTypeName(rawValue: name) else {
                    let names = StorageTypeName.allCases.map(\.rawValue).joined(separator: ", ")
                    throw error("Expected a type name after 'is' (\(names)), found \(token.display)")
                }
                try advance()
                operand = .isType(operand, type)
                continue
            }
            let binaryOp: StorageBinaryOperator
            if case .binary(let b) = op { binaryOp = b } else { binaryOp = .equal }  // unused for || and &&
            // Checked without binding `open.last`: a live copy would make the append copy the run.
            if open.last?.level == level {
                open[open.count - 1].operands.append(operand)
                open[open.count - 1].operators.append(binaryOp)
            } else {
                open.append(OpenRun(level: level, operands: [operand], operators: [binaryOp]))
            }
            operand = try unary(depth: depth)
        }
        while let top = open.popLast() { operand = top.closed(with: operand) }
        return operand
    }

    private mutating func unary(depth: Int) throws(RulesError) -> StorageExpr {
        guard depth <= StorageLimits.maxExpressionDepth else {
            throw error("Expression nested deeper than \(StorageLimits.maxExpressionDepth) levels")
        }
        if isSymbol(.bang) {
            try advance()
            return .not(try unary(depth: depth + 1))
        }
        if isSymbol(.minus) {
            try advance()
            if case .int(let magnitude) = token.kind {
                // `-9223372036854775808` only exists negated.
                guard magnitude <= UInt64(Int64.max) + 1 else { throw error("Integer literal is out of range") }
                try advance()
                let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
                return try postfix(.literal(.int(value)), depth: depth + 1)
            }
            return .negate(try unary(depth: depth + 1))
        }
        return try postfix(try primary(depth: depth), depth: depth)
    }

    private mutating func postfix(_ base: StorageExpr, depth: Int) throws(RulesError) -> StorageExpr {
        var e = base
        var depth = depth
        while isSymbol(.dot) || isSymbol(.lbracket) {
            depth += 1
            guard depth <= StorageLimits.maxExpressionDepth else {
                throw error("Expression nested deeper than \(StorageLimits.maxExpressionDepth) levels")
            }
            if isSymbol(.dot) {
                try advance()
                let (name, offset) = try identifier("a field or method name after '.'")
                if isSymbol(.lparen) {
                    let (args, offsets) = try arguments(depth: depth)
                    e = .unresolvedMethod(e, name, args, offset: offset, argumentOffsets: offsets)
                } else {
                    e = .member(e, name)
                }
            } else {
                e = try subscripted(e, depth: depth)
            }
        }
        return e
    }

    /// `[i]` or `[i:j]` (either bound optional) after `base`, from the current `[`.
    private mutating func subscripted(_ base: StorageExpr, depth: Int) throws(RulesError) -> StorageExpr {
        try advance()
        var lower: StorageExpr?
        if !isSymbol(.colon) { lower = try expression(depth: depth + 1) }
        if isSymbol(.colon) {
            try advance()
            let upper = isSymbol(.rbracket) ? nil : try expression(depth: depth + 1)
            try expect(.rbracket, "to close the range [i:j]")
            return .slice(base, lower, upper)
        }
        try expect(.rbracket, "to close the index")
        guard let lower else { throw error("Expected an index inside [ ]") }
        return .index(base, lower)
    }

    /// `( expr, expr, ... )` from the current `(`; also returns where each argument starts.
    private mutating func arguments(depth: Int) throws(RulesError) -> ([StorageExpr], [Int]) {
        try advance()
        var args: [StorageExpr] = []
        var offsets: [Int] = []
        while !isSymbol(.rparen) {
            offsets.append(token.offset)
            args.append(try expression(depth: depth + 1))
            guard isSymbol(.comma) else { break }
            try advance()
        }
        try expect(.rparen, "to close the argument list")
        return (args, offsets)
    }

    private mutating func primary(depth: Int) throws(RulesError) -> StorageExpr {
        switch token.kind {
        case .int(let v):
            guard v <= UInt64(Int64.max) else { throw error("Integer literal is out of range") }
            try advance()
            return .literal(.int(Int64(v)))
        case .float(let v):
            try advance()
            return .literal(.float(v))
        case .string(let s):
            try advance()
            return .literal(.string(s))
        case .bytes(let b):
            try advance()
            return .literal(.bytes(b))
        case .identifier(let name):
            return try nameOrCall(name, depth: depth)
        case .symbol(.lparen):
            try advance()
            let e = try expression(depth: depth + 1)
            try expect(.rparen, "to close the parenthesis")
            return e
        case .symbol(.lbracket):
            return try listLiteral(depth: depth)
        case .symbol(.lbrace):
            return try mapLiteral(depth: depth)
        case .symbol(.slash):
            return try pathLiteral(depth: depth)
        default:
            throw error("Expected an expression, found \(token.display)")
        }
    }

    private mutating func nameOrCall(_ name: String, depth: Int) throws(RulesError) -> StorageExpr {
        let offset = token.offset
        switch name {
        case "true", "false":
            try advance()
            return .literal(.bool(name == "true"))
        case "null":
            try advance()
            return .literal(.null)
        case "in", "is", "if", "let", "return", "function", "match", "allow", "service", "rules_version":
            throw error("Unexpected keyword '\(name)' in an expression")
        default:
            try advance()
            guard isSymbol(.lparen) else { return .unresolvedName(name, offset: offset) }
            let (args, _) = try arguments(depth: depth + 1)
            return .unresolvedCall(name, args, offset: offset)
        }
    }

    private mutating func listLiteral(depth: Int) throws(RulesError) -> StorageExpr {
        try advance()
        var items: [StorageExpr] = []
        while !isSymbol(.rbracket) {
            items.append(try expression(depth: depth + 1))
            guard isSymbol(.comma) else { break }
            try advance()
        }
        try expect(.rbracket, "to close the list")
        return .list(items)
    }

    private mutating func mapLiteral(depth: Int) throws(RulesError) -> StorageExpr {
        try advance()
        var entries: [(key: StorageExpr, value: StorageExpr)] = []
        while !isSymbol(.rbrace) {
            let key = try expression(depth: depth + 1)
            try expect(.colon, "between a map key and its value")
            entries.append((key, try expression(depth: depth + 1)))
            guard isSymbol(.comma) else { break }
            try advance()
        }
        try expect(.rbrace, "to close the map")
        return .map(entries)
    }
}
