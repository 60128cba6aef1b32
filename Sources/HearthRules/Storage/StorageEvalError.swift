/// Why an expression could not produce a value. An `allow` whose condition fails this way counts
/// as false (Firebase: "an error denies"); `&&` and `||` absorb an error when the other side
/// decides alone.
///
/// Messages name only things written in the rules (keys, methods, types), never request data.
struct StorageEvalError: Error, Sendable {
    enum Kind: Sendable {
        case typeMismatch(operation: String, types: String)
        case missingKey(String)
        case nullAccess(member: String)
        case indexOutOfRange
        case divisionByZero
        case overflow
        case notBoolean(String)
        case badArgument(String)
        case noSuchMethod(method: String, type: String)
        case callDepthExceeded
        case nestingExceeded
        case valueTooDeep
        case budgetExceeded
        case unsupported(String)
        case regex(String)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// A regex that ran out of the request's work budget: the same error as any other work.
    init(_ exhausted: LinearRegex.BudgetExceeded) { self.kind = .budgetExceeded }

    static func type(_ operation: String, _ values: StorageValue...) -> StorageEvalError {
        StorageEvalError(.typeMismatch(operation: operation, types: values.map(\.typeName).joined(separator: ", ")))
    }

    var message: String {
        switch kind {
        case .typeMismatch(let op, let types): "\(op) is not defined for \(types)"
        case .missingKey(let key): "no key '\(key)' in the map"
        case .nullAccess(let member): "'\(member)' read on null"
        case .indexOutOfRange: "index out of range"
        case .divisionByZero: "division by zero"
        case .overflow: "integer or time overflow"
        case .notBoolean(let what): "\(what) is not a boolean"
        case .badArgument(let why): why
        case .noSuchMethod(let method, let type): "\(type) has no method \(method)()"
        case .callDepthExceeded: "function calls nested deeper than \(StorageLimits.maxCallDepth)"
        case .valueTooDeep: "lists and maps nested deeper than \(StorageLimits.maxValueDepth) levels"
        case .nestingExceeded: "evaluation nested deeper than \(StorageLimits.maxEvaluationNesting) expressions"
        case .budgetExceeded: "evaluation exceeded its work budget"
        case .unsupported(let what): what
        case .regex(let why): "invalid regular expression: \(why)"
        }
    }
}

/// Bounds that keep one rules file from crashing or stalling the server.
enum StorageLimits {
    /// Largest rules source accepted (Firebase's limit is 256 KiB).
    static let maxSourceBytes = 256 * 1024
    /// Deepest syntactic nesting of one expression, and of `match` blocks.
    static let maxExpressionDepth = 100
    static let maxMatchDepth = 32
    /// Nested user-function calls (Firebase: 20).
    static let maxCallDepth = 20
    /// Deepest recursion of the evaluator (expression depth summed over nested calls). With the
    /// other limits this keeps the worst case under 256 KiB of stack in release builds.
    static let maxEvaluationNesting = 600
    /// Work units per request: one per expression node, more for regexes and collections.
    static let workBudget = 2_000_000
    /// Deepest nesting of lists, sets and maps in one value (equality and hashing recurse on it).
    static let maxValueDepth = 64
    /// Largest string, list, map or bytes value an expression may build.
    static let maxCollectionSize = 100_000
    static let maxStringLength = 1 << 20
}
