extension StorageEvaluator {
    /// `x.name`: a map field (missing → error, as in Firebase).
    func member(_ v: StorageValue, _ name: String) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .map(let m):
            guard let x = m[name] else { throw StorageEvalError(.missingKey(name)) }
            return x
        case .null:
            throw StorageEvalError(.nullAccess(member: name))
        default:
            throw StorageEvalError.type(".\(name)", v)
        }
    }

    /// `x[i]`: list, string (one character), bytes (an int), path (a segment) by position; map by key.
    func index(_ v: StorageValue, _ i: StorageValue) throws(StorageEvalError) -> StorageValue {
        if case .map(let m) = v {
            guard case .string(let key) = i else { throw StorageEvalError.type("map[key] (keys are strings)", i) }
            guard let x = m[key] else { throw StorageEvalError(.missingKey(key)) }
            return x
        }
        guard case .int(let n) = i else { throw StorageEvalError.type("[index]", v, i) }
        func at<C: Collection>(_ c: C) throws(StorageEvalError) -> C.Element where C.Index == Int {
            guard n >= 0, n < c.count else { throw StorageEvalError(.indexOutOfRange) }
            return c[c.startIndex + Int(n)]
        }
        switch v {
        case .list(let items): return try at(items)
        case .string(let s): return .string(String(try at(Array(s.unicodeScalars))))
        case .bytes(let b): return .int(Int64(try at(b)))
        case .path(let p):
            guard case .literal(let s) = try at(p.segments) else { throw StorageEvalError(.badArgument("path segment is an unbound $(...)")) }
            return .string(s)
        case .null: throw StorageEvalError(.nullAccess(member: "[\(n)]"))
        default: throw StorageEvalError.type("[index]", v)
        }
    }

    /// `x[i:j]` (j exclusive; either bound may be omitted) on lists, strings and bytes.
    func slice(_ v: StorageValue, _ lower: StorageValue?, _ upper: StorageValue?) throws(StorageEvalError) -> StorageValue {
        func bounds(_ count: Int) throws(StorageEvalError) -> Range<Int> {
            var lo = 0
            var hi = count
            if let lower {
                guard case .int(let l) = lower else { throw StorageEvalError.type("[i:j]", lower) }
                lo = Int(clamping: l)
            }
            if let upper {
                guard case .int(let u) = upper else { throw StorageEvalError.type("[i:j]", upper) }
                hi = Int(clamping: u)
            }
            guard lo >= 0, lo <= hi, hi <= count else { throw StorageEvalError(.indexOutOfRange) }
            return lo..<hi
        }
        switch v {
        case .list(let items): return .list(Array(items[try bounds(items.count)]))
        case .string(let s):
            let scalars = Array(s.unicodeScalars)
            return .string(String(String.UnicodeScalarView(scalars[try bounds(scalars.count)])))
        case .bytes(let b): return .bytes(Array(b[try bounds(b.count)]))
        case .null: throw StorageEvalError(.nullAccess(member: "[i:j]"))
        default: throw StorageEvalError.type("[i:j]", v)
        }
    }

    /// Dispatches `receiver.name(args)` on the receiver's type.
    mutating func method(
        _ receiver: StorageValue, _ name: StorageMethodName, _ args: [StorageValue], regex: LinearRegex?
    ) throws(StorageEvalError) -> StorageValue {
        let result: StorageValue?
        switch receiver {
        case .string(let s): result = try stringMethod(s, name, args, regex: regex)
        case .list(let items): result = try listMethod(items, name, args)
        case .set(let items): result = try setMethod(items, name, args)
        case .map(let m): result = try mapMethod(m, name, args)
        case .mapDiff(let left, let right): result = Self.mapDiffMethod(left, right, name)
        case .bytes(let b): result = Self.bytesMethod(b, name)
        case .timestamp(let t): result = try Self.timestampMethod(t, name)
        case .duration(let d): result = Self.durationMethod(d, name)
        case .latlng(let lat, let lng): result = try Self.latlngMethod(lat, lng, name, args)
        case .path(let p): result = try Self.pathMethod(p, name, args)
        case .null: throw StorageEvalError(.nullAccess(member: name.rawValue + "()"))
        default: result = nil
        }
        guard let result else { throw StorageEvalError(.noSuchMethod(method: name.rawValue, type: receiver.typeName)) }
        return result
    }

    /// A compiled regex for a pattern argument (compiled once per request when not literal).
    mutating func regex(_ precompiled: LinearRegex?, _ pattern: StorageValue) throws(StorageEvalError) -> LinearRegex {
        if let precompiled { return precompiled }
        guard case .string(let p) = pattern else { throw StorageEvalError.type("a regular expression", pattern) }
        if let cached = regexCache[p] { return cached }
        try charge(p.utf8.count * 4 + 1)
        do {
            let compiled = try LinearRegex(p)
            regexCache[p] = compiled
            return compiled
        } catch {
            throw StorageEvalError(.regex(error.message))
        }
    }
}
