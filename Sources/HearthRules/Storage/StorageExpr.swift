/// An expression of the Storage rules language.
///
/// The parser produces the `unresolved…` cases (names as written, with source offsets); the
/// resolver replaces them with variables, function indices, builtins and checked methods once
/// every function declaration is known. The evaluator only ever sees resolved trees.
indirect enum StorageExpr: Sendable {
    case literal(StorageValue)
    case list([StorageExpr])
    case map([(key: StorageExpr, value: StorageExpr)])
    case path([StoragePathPart])
    case variable(StorageVariable)
    case member(StorageExpr, String)
    case index(StorageExpr, StorageExpr)
    case slice(StorageExpr, StorageExpr?, StorageExpr?)
    /// A checked method call; `regex` is the pattern argument compiled ahead of time when it is a
    /// string literal.
    case method(StorageExpr, StorageMethodName, [StorageExpr], regex: LinearRegex?)
    case builtin(StorageBuiltin, [StorageExpr])
    /// A user function, by index in `StorageRules.functions`.
    case call(Int, [StorageExpr])
    case not(StorageExpr)
    case negate(StorageExpr)
    /// A left-associative run of same-precedence operators: `a + b - c`, `a == b`.
    case chain(StorageExpr, [(op: StorageBinaryOperator, operand: StorageExpr)])
    case and([StorageExpr])
    case or([StorageExpr])
    case conditional(StorageExpr, StorageExpr, StorageExpr)
    case isType(StorageExpr, StorageTypeName)

    case unresolvedName(String, offset: Int)
    case unresolvedCall(String, [StorageExpr], offset: Int)
    case unresolvedMethod(StorageExpr, String, [StorageExpr], offset: Int, argumentOffsets: [Int])
}

/// One segment of a path literal such as `/users/$(uid)/photos`.
enum StoragePathPart: Sendable {
    case literal(String)
    case interpolated(StorageExpr)
    /// `$(name)` with no such variable: filled in later by `bind({name: ...})`.
    case placeholder(String)
}

/// A resolved variable reference.
enum StorageVariable: Sendable {
    /// A path wildcard of the enclosing `match` blocks, by position in the block's capture list.
    case capture(Int)
    /// A function parameter or `let` binding, by slot in the current call frame.
    case local(Int)
    case request
    case resource
}

enum StorageBinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case `in` = "in"
}

/// The type names `x is T` accepts.
enum StorageTypeName: String, Sendable, CaseIterable {
    case bool, bytes, duration, float, int, latlng, list, map, number, path, set, string, timestamp
    case mapDiff = "map_diff"

    func accepts(_ v: StorageValue) -> Bool {
        switch self {
        case .number:
            if case .int = v { return true }
            if case .float = v { return true }
            return false
        case .mapDiff: return v.typeName == "map_diff"
        default: return v.typeName == rawValue
        }
    }
}
