extension StorageEvaluator {
    mutating func binary(_ op: StorageBinaryOperator, _ a: StorageValue, _ b: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch op {
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = try Self.compare(a, b, op.rawValue) else { return .bool(false) }  // NaN
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .in: return .bool(try contains(b, a))
        case .add: return try add(a, b)
        case .subtract: return try subtract(a, b)
        case .multiply, .divide, .remainder: return try multiplicative(op, a, b)
        }
    }

    /// -1, 0, 1; nil when a NaN makes the comparison false. Numbers compare across int and
    /// float; strings by code point; bytes, timestamps, durations and bools in their own order.
    static func compare(_ a: StorageValue, _ b: StorageValue, _ op: String) throws(StorageEvalError) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case let (.int(x), .int(y)): return sign(x, y)
        case let (.int(x), .float(y)): return y.isNaN ? nil : compareIntDouble(x, y)
        case let (.float(x), .int(y)): return x.isNaN ? nil : -compareIntDouble(y, x)
        case let (.float(x), .float(y)): return x.isNaN || y.isNaN ? nil : sign(x, y)
        case let (.string(x), .string(y)):
            if x.unicodeScalars.elementsEqual(y.unicodeScalars) { return 0 }
            return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : 1
        case let (.bytes(x), .bytes(y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        case let (.timestamp(x), .timestamp(y)): return sign(x, y)
        case let (.duration(x), .duration(y)): return sign(x, y)
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        default: throw StorageEvalError.type(op, a, b)
        }
    }

    /// Exact comparison of an integer with a (non-NaN) double.
    private static func compareIntDouble(_ i: Int64, _ d: Double) -> Int {
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.down)
        let wi = Int64(whole)
        if i != wi { return i < wi ? -1 : 1 }
        return d > whole ? -1 : 0
    }

    /// `x in collection`: list and set membership, or a key of a map.
    mutating func contains(_ collection: StorageValue, _ x: StorageValue) throws(StorageEvalError) -> Bool {
        switch collection {
        case .list(let items), .set(let items):
            try charge(items.count)
            return items.contains(x)
        case .map(let m):
            guard case .string(let key) = x else { throw StorageEvalError.type("in (map keys are strings)", x, collection) }
            return m[key] != nil
        default:
            throw StorageEvalError.type("in", x, collection)
        }
    }

    private mutating func add(_ a: StorageValue, _ b: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch (a, b) {
        case let (.int(x), .int(y)):
            let (r, overflow) = x.addingReportingOverflow(y)
            if overflow { throw StorageEvalError(.overflow) }
            return .int(r)
        case let (.string(x), .string(y)):
            try checkSize(x.utf8.count + y.utf8.count, limit: StorageLimits.maxStringLength)
            return .string(x + y)
        case let (.list(x), .list(y)):
            try checkSize(x.count + y.count, limit: StorageLimits.maxCollectionSize)
            return .list(x + y)
        case let (.bytes(x), .bytes(y)):
            try checkSize(x.count + y.count, limit: StorageLimits.maxStringLength)
            return .bytes(x + y)
        case let (.timestamp(t), .duration(d)), let (.duration(d), .timestamp(t)):
            guard let r = t.adding(d) else { throw StorageEvalError(.overflow) }
            return .timestamp(r)
        case let (.duration(x), .duration(y)):
            guard let r = x.adding(y) else { throw StorageEvalError(.overflow) }
            return .duration(r)
        default:
            guard let x = a.number, let y = b.number else { throw StorageEvalError.type("+", a, b) }
            return .float(x + y)
        }
    }

    private mutating func subtract(_ a: StorageValue, _ b: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch (a, b) {
        case let (.int(x), .int(y)):
            let (r, overflow) = x.subtractingReportingOverflow(y)
            if overflow { throw StorageEvalError(.overflow) }
            return .int(r)
        case let (.timestamp(t), .duration(d)):
            guard let n = d.negated, let r = t.adding(n) else { throw StorageEvalError(.overflow) }
            return .timestamp(r)
        case let (.timestamp(x), .timestamp(y)):
            guard let r = StorageDuration(seconds: x.seconds - y.seconds, nanos: Int64(x.nanos) - Int64(y.nanos)) else {
                throw StorageEvalError(.overflow)
            }
            return .duration(r)
        case let (.duration(x), .duration(y)):
            guard let n = y.negated, let r = x.adding(n) else { throw StorageEvalError(.overflow) }
            return .duration(r)
        default:
            guard let x = a.number, let y = b.number else { throw StorageEvalError.type("-", a, b) }
            return .float(x - y)
        }
    }

    private func multiplicative(_ op: StorageBinaryOperator, _ a: StorageValue, _ b: StorageValue) throws(StorageEvalError) -> StorageValue {
        if case .int(let x) = a, case .int(let y) = b {
            switch op {
            case .multiply:
                let (r, overflow) = x.multipliedReportingOverflow(by: y)
                if overflow { throw StorageEvalError(.overflow) }
                return .int(r)
            case .divide:
                if y == 0 { throw StorageEvalError(.divisionByZero) }
                let (r, overflow) = x.dividedReportingOverflow(by: y)
                if overflow { throw StorageEvalError(.overflow) }
                return .int(r)  // truncates toward zero
            default:
                if y == 0 { throw StorageEvalError(.divisionByZero) }
                return .int(x.remainderReportingOverflow(dividingBy: y).partialValue)
            }
        }
        guard let x = a.number, let y = b.number else { throw StorageEvalError.type(op.rawValue, a, b) }
        switch op {
        case .multiply: return .float(x * y)
        case .divide: return .float(x / y)
        default: return .float(x.truncatingRemainder(dividingBy: y))
        }
    }

    func negate(_ v: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .int(let i):
            guard i != .min else { throw StorageEvalError(.overflow) }
            return .int(-i)
        case .float(let d): return .float(-d)
        case .duration(let d):
            guard let n = d.negated else { throw StorageEvalError(.overflow) }
            return .duration(n)
        default: throw StorageEvalError.type("unary -", v)
        }
    }

    func checkSize(_ size: Int, limit: Int) throws(StorageEvalError) {
        if size > limit { throw StorageEvalError(.badArgument("value larger than \(limit) elements or bytes")) }
    }
}

extension StorageValue {
    /// The numeric value of an int or float.
    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .float(let d): d
        default: nil
        }
    }
}
