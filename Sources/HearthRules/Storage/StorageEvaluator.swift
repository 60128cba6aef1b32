/// Evaluates resolved expressions for one request.
///
/// Errors are values of `StorageEvalError` thrown through typed throws; `&&`, `||` and unused
/// function arguments or `let`s absorb them as the rules language specifies. Every node costs one
/// unit of a per-request work budget, regexes and collection operations cost in proportion to
/// their input, and both Swift recursion (expression nesting × function calls) and function call
/// depth are capped, so no rules file can hang or crash the server.
struct StorageEvaluator {
    let functions: [StorageFunction]
    let request: StorageRulesRequest
    let target: [String]
    var budget = StorageLimits.workBudget
    private var callDepth = 0
    private var nesting = 0
    private var captures: [StorageValue] = []
    private var locals: [Slot] = []
    /// Lazily built pieces of `request` and `resource` (see `StorageEvaluator+Request.swift`).
    var cache = RequestCache()
    var regexCache: [String: LinearRegex] = [:]

    /// A function argument or `let` value; a failure only matters if it is read.
    enum Slot {
        case value(StorageValue)
        case failure(StorageEvalError)
    }

    init(functions: [StorageFunction], request: StorageRulesRequest, target: [String]) {
        self.functions = functions
        self.request = request
        self.target = target
    }

    /// Evaluates an `allow` condition with the block's wildcard values: true, false, or why not.
    mutating func check(_ condition: StorageExpr, captures: [StorageValue]) -> Result<Bool, StorageEvalError> {
        self.captures = captures
        locals = []
        callDepth = 0
        nesting = 0
        do {
            guard case .bool(let b) = try eval(condition) else { return .failure(StorageEvalError(.notBoolean("the condition"))) }
            return .success(b)
        } catch {
            return .failure(error)
        }
    }

    /// Evaluates `e` on its own with the block's wildcard values; nil when it fails.
    mutating func value(of e: StorageExpr, captures: [StorageValue]) -> StorageValue? {
        self.captures = captures
        locals = []
        callDepth = 0
        nesting = 0
        return try? eval(e)
    }

    mutating func charge(_ units: Int) throws(StorageEvalError) {
        budget -= units
        if budget < 0 { throw StorageEvalError(.budgetExceeded) }
    }

    /// Evaluates a sub-expression whose error the caller may absorb; budget exhaustion is never
    /// absorbed, so a stalled evaluation stops.
    private mutating func attempt(_ e: StorageExpr) throws(StorageEvalError) -> Result<StorageValue, StorageEvalError> {
        do {
            return .success(try eval(e))
        } catch {
            if case .budgetExceeded = error.kind { throw error }
            return .failure(error)
        }
    }

    /// Evaluates one node. Kept small on purpose: every case calls an out-of-line helper, so the
    /// frame that recursion repeats stays a few words (see `StorageEvaluator+Nodes.swift`).
    mutating func eval(_ e: StorageExpr) throws(StorageEvalError) -> StorageValue {
        try charge(1)
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= StorageLimits.maxEvaluationNesting else { throw StorageEvalError(.nestingExceeded) }
        switch e {
        case .literal(let v): return v
        case .variable(let v): return try variable(v)
        case .list(let items): return try evalList(items)
        case .map(let entries): return try evalMap(entries)
        case .path(let parts): return .path(try path(parts))
        case .member(let base, let name): return try evalMember(base, name)
        case .index(let base, let i): return try evalIndex(base, i)
        case .slice(let base, let lower, let upper): return try evalSlice(base, lower, upper)
        case .method(let base, let name, let args, let regex): return try evalMethod(base, name, args, regex)
        case .builtin(let b, let args): return try evalBuiltin(b, args)
        case .call(let index, let args): return try call(functions[index], args)
        case .not(let inner): return try evalNot(inner)
        case .negate(let inner): return try evalNegate(inner)
        case .chain(let first, let rest): return try evalChain(first, rest)
        case .and(let terms): return try logical(terms, decisive: false)
        case .or(let terms): return try logical(terms, decisive: true)
        case .conditional(let c, let a, let b): return try evalConditional(c, a, b)
        case .isType(let inner, let type): return try evalIs(inner, type)
        case .unresolvedName, .unresolvedCall, .unresolvedMethod:
            throw StorageEvalError(.unsupported("unresolved name (compiler bug)"))
        }
    }

    /// `&&` (decisive value false) and `||` (decisive value true): the first operand equal to the
    /// decisive value wins even if another operand failed; otherwise the first failure is the result.
    @inline(never)
    private mutating func logical(_ terms: [StorageExpr], decisive: Bool) throws(StorageEvalError) -> StorageValue {
        var firstFailure: StorageEvalError?
        for term in terms {
            switch try attempt(term) {
            case .success(.bool(let b)):
                if b == decisive { return .bool(decisive) }
            case .success:
                firstFailure = firstFailure ?? StorageEvalError(.notBoolean("an operand of \(decisive ? "||" : "&&")"))
            case .failure(let e):
                firstFailure = firstFailure ?? e
            }
        }
        if let firstFailure { throw firstFailure }
        return .bool(!decisive)
    }

    @inline(never)
    private mutating func call(_ f: StorageFunction, _ args: [StorageExpr]) throws(StorageEvalError) -> StorageValue {
        var frame: [Slot] = []
        frame.reserveCapacity(args.count + f.lets.count)
        for a in args {
            switch try attempt(a) {
            case .success(let v): frame.append(.value(v))
            case .failure(let e): frame.append(.failure(e))
            }
        }
        guard callDepth < StorageLimits.maxCallDepth else { throw StorageEvalError(.callDepthExceeded) }
        callDepth += 1
        let saved = locals
        locals = frame
        defer {
            callDepth -= 1
            locals = saved
        }
        for binding in f.lets {
            switch try attempt(binding) {
            case .success(let v): locals.append(.value(v))
            case .failure(let e): locals.append(.failure(e))
            }
        }
        return try eval(f.body)
    }

    @inline(never)
    private mutating func variable(_ v: StorageVariable) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .capture(let i):
            return captures[i]
        case .local(let i):
            switch locals[i] {
            case .value(let value): return value
            case .failure(let e): throw e
            }
        case .request:
            return requestValue()
        case .resource:
            return existingValue()
        }
    }

    @inline(never)
    private mutating func path(_ parts: [StoragePathPart]) throws(StorageEvalError) -> StoragePathValue {
        var segments: [StoragePathValue.Segment] = []
        for part in parts {
            switch part {
            case .literal(let s): segments.append(.literal(s))
            case .placeholder(let n): segments.append(.placeholder(n))
            case .interpolated(let e):
                switch try eval(e) {
                case .string(let s): segments.append(.literal(s))
                case .int(let i): segments.append(.literal(String(i)))
                case .path(let p): segments += p.segments
                case let other: throw StorageEvalError.type("$( ) in a path", other)
                }
            }
        }
        return StoragePathValue(segments: segments)
    }
}
