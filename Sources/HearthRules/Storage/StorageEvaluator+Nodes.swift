/// One out-of-line helper per expression kind, so `eval`'s own frame — the one deep recursion
/// repeats — holds no case's temporaries.
extension StorageEvaluator {
    @inline(never)
    mutating func evalList(_ items: [StorageExpr]) throws(StorageEvalError) -> StorageValue {
        var out: [StorageValue] = []
        out.reserveCapacity(items.count)
        for item in items { out.append(try eval(item)) }
        return try Self.checkedDepth(.list(out))
    }

    /// `v` if its nesting stays within `maxValueDepth`, so equality and hashing never recurse deeper.
    static func checkedDepth(_ v: StorageValue) throws(StorageEvalError) -> StorageValue {
        guard v.depth(limit: StorageLimits.maxValueDepth) <= StorageLimits.maxValueDepth else {
            throw StorageEvalError(.valueTooDeep)
        }
        return v
    }

    @inline(never)
    mutating func evalMap(_ entries: [(key: StorageExpr, value: StorageExpr)]) throws(StorageEvalError) -> StorageValue {
        var map = StorageMap()
        for entry in entries {
            guard case .string(let key) = try eval(entry.key) else { throw StorageEvalError(.badArgument("map keys must be strings")) }
            map[key] = try eval(entry.value)
        }
        return try Self.checkedDepth(.map(map))
    }

    @inline(never)
    mutating func evalIndex(_ base: StorageExpr, _ i: StorageExpr) throws(StorageEvalError) -> StorageValue {
        let b = try eval(base)
        return try index(b, try eval(i))
    }

    @inline(never)
    mutating func evalSlice(_ base: StorageExpr, _ lower: StorageExpr?, _ upper: StorageExpr?) throws(StorageEvalError) -> StorageValue {
        let b = try eval(base)
        var lo: StorageValue?
        var hi: StorageValue?
        if let lower { lo = try eval(lower) }
        if let upper { hi = try eval(upper) }
        return try slice(b, lo, hi)
    }

    @inline(never)
    mutating func evalMethod(
        _ base: StorageExpr, _ name: StorageMethodName, _ args: [StorageExpr], _ regex: LinearRegex?
    ) throws(StorageEvalError) -> StorageValue {
        let receiver = try eval(base)
        var values: [StorageValue] = []
        values.reserveCapacity(args.count)
        for a in args { values.append(try eval(a)) }
        return try method(receiver, name, values, regex: regex)
    }

    @inline(never)
    mutating func evalBuiltin(_ b: StorageBuiltin, _ args: [StorageExpr]) throws(StorageEvalError) -> StorageValue {
        var values: [StorageValue] = []
        values.reserveCapacity(args.count)
        for a in args { values.append(try eval(a)) }
        return try builtin(b, values)
    }

    @inline(never)
    mutating func evalNot(_ inner: StorageExpr) throws(StorageEvalError) -> StorageValue {
        let v = try eval(inner)
        guard case .bool(let b) = v else { throw StorageEvalError.type("!", v) }
        return .bool(!b)
    }

    @inline(never)
    mutating func evalNegate(_ inner: StorageExpr) throws(StorageEvalError) -> StorageValue {
        try negate(try eval(inner))
    }

    @inline(never)
    mutating func evalChain(
        _ first: StorageExpr, _ rest: [(op: StorageBinaryOperator, operand: StorageExpr)]
    ) throws(StorageEvalError) -> StorageValue {
        var acc = try eval(first)
        for r in rest { acc = try binary(r.op, acc, try eval(r.operand)) }
        return acc
    }

    @inline(never)
    mutating func evalConditional(_ c: StorageExpr, _ a: StorageExpr, _ b: StorageExpr) throws(StorageEvalError) -> StorageValue {
        let v = try eval(c)
        guard case .bool(let flag) = v else { throw StorageEvalError(.notBoolean("the ?: condition")) }
        return try eval(flag ? a : b)
    }

    @inline(never)
    mutating func evalIs(_ inner: StorageExpr, _ type: StorageTypeName) throws(StorageEvalError) -> StorageValue {
        .bool(type.accepts(try eval(inner)))
    }
}
