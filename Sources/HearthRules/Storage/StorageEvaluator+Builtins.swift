extension StorageEvaluator {
    /// Global and namespace functions: conversions, `math.*`, `timestamp.*`, `duration.*`,
    /// `hashing.*`, `latlng.value`, `debug`. `firestore.*` always fails (no Cloud Firestore here).
    mutating func builtin(_ b: StorageBuiltin, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue {
        let x = args[0]
        switch b {
        case .int: return try Self.toInt(x)
        case .float: return try Self.toFloat(x)
        case .string: return try Self.toText(x)
        case .bool:
            switch x {
            case .bool: return x
            case .string("true"): return .bool(true)
            case .string("false"): return .bool(false)
            default: throw StorageEvalError(.badArgument("bool() takes a bool or the string 'true' or 'false'"))
            }
        case .path:
            switch x {
            case .path: return x
            case .string(let s): return .path(StoragePathValue(parsing: s))
            default: throw StorageEvalError.type("path()", x)
            }
        case .debug: return x
        case .mathAbs:
            if case .int(let i) = x {
                guard i != .min else { throw StorageEvalError(.overflow) }
                return .int(abs(i))
            }
            return .float(abs(try Self.double(x, b)))
        case .mathCeil: return try Self.integral(x, b, .up)
        case .mathFloor: return try Self.integral(x, b, .down)
        case .mathRound: return try Self.integral(x, b, .toNearestOrAwayFromZero)
        case .mathIsInfinite: return .bool(try Self.double(x, b).isInfinite)
        case .mathIsNaN: return .bool(try Self.double(x, b).isNaN)
        case .mathSqrt: return .float(try Self.double(x, b).squareRoot())
        case .mathPow: return .float(StorageMath.power(try Self.double(x, b), try Self.double(args[1], b)))
        case .timestampDate:
            guard case .int(let y) = x, case .int(let m) = args[1], case .int(let d) = args[2] else {
                throw StorageEvalError.type("timestamp.date()", x, args[1], args[2])
            }
            guard let t = StorageTimestamp(year: y, month: m, day: d) else { throw StorageEvalError(.badArgument("timestamp.date(): no such date")) }
            return .timestamp(t)
        case .timestampValue:
            guard case .int(let ms) = x else { throw StorageEvalError.type("timestamp.value()", x) }
            guard let t = StorageTimestamp(millis: ms) else { throw StorageEvalError(.overflow) }
            return .timestamp(t)
        case .durationAbs:
            guard case .duration(let d) = x else { throw StorageEvalError.type("duration.abs()", x) }
            guard d.isNegative else { return x }
            guard let n = d.negated else { throw StorageEvalError(.overflow) }
            return .duration(n)
        case .durationTime:
            var parts: [Int64] = []
            for a in args {
                guard case .int(let v) = a else { throw StorageEvalError.type("duration.time()", a) }
                parts.append(v)
            }
            let (h, hOverflow) = parts[0].multipliedReportingOverflow(by: 3600)
            let (m, mOverflow) = parts[1].multipliedReportingOverflow(by: 60)
            let (hm, sumOverflow) = h.addingReportingOverflow(m)
            let (s, sOverflow) = hm.addingReportingOverflow(parts[2])
            guard !(hOverflow || mOverflow || sumOverflow || sOverflow), let d = StorageDuration(seconds: s, nanos: parts[3]) else {
                throw StorageEvalError(.overflow)
            }
            return .duration(d)
        case .durationValue:
            guard case .string(let unit) = args[1], let perUnit = StorageDuration.nanosPerUnit(unit) else {
                throw StorageEvalError(.badArgument("duration.value(): the unit is one of w, d, h, m, s, ms, ns"))
            }
            let d: StorageDuration?
            switch x {
            case .int(let n): d = StorageDuration(magnitude: n, unitNanos: perUnit)
            case .float(let f): d = StorageDuration(fractional: f, unitNanos: perUnit)
            default: throw StorageEvalError.type("duration.value()", x)
            }
            guard let d else { throw StorageEvalError(.overflow) }
            return .duration(d)
        case .hashingCrc32, .hashingCrc32c, .hashingMd5, .hashingSha256:
            let input: [UInt8]
            switch x {
            case .bytes(let bytes): input = bytes
            case .string(let s): input = Array(s.utf8)
            default: throw StorageEvalError.type(b.rawValue + "()", x)
            }
            try charge(input.count / 8 + 1)
            switch b {
            case .hashingCrc32: return .bytes(StorageHashing.crc32(input))
            case .hashingCrc32c: return .bytes(StorageHashing.crc32c(input))
            case .hashingMd5: return .bytes(StorageHashing.md5(input))
            default: return .bytes(StorageHashing.sha256(input))
            }
        case .latlngValue:
            let lat = try Self.double(x, b)
            let lng = try Self.double(args[1], b)
            guard (-90...90).contains(lat), (-180...180).contains(lng) else {
                throw StorageEvalError(.badArgument("latlng.value(): latitude is -90…90 and longitude -180…180"))
            }
            return .latlng(latitude: lat, longitude: lng)
        case .firestoreGet, .firestoreExists:
            throw StorageEvalError(.unsupported("\(b.rawValue)() reads Cloud Firestore, which this server does not provide"))
        }
    }

    private static func double(_ v: StorageValue, _ b: StorageBuiltin) throws(StorageEvalError) -> Double {
        guard let d = v.number else { throw StorageEvalError.type(b.rawValue + "()", v) }
        return d
    }

    /// `math.ceil/floor/round`: an int; fails for NaN, ±∞ and values beyond int range.
    private static func integral(_ v: StorageValue, _ b: StorageBuiltin, _ rule: FloatingPointRoundingRule) throws(StorageEvalError) -> StorageValue {
        if case .int = v { return v }
        guard let i = Int64(exactly: try double(v, b).rounded(rule)) else { throw StorageEvalError(.overflow) }
        return .int(i)
    }

    /// `int(x)`: ints as is, floats truncated toward zero, decimal strings parsed.
    static func toInt(_ v: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .int: return v
        case .float(let d):
            guard let i = Int64(exactly: d.rounded(.towardZero)) else { throw StorageEvalError(.overflow) }
            return .int(i)
        case .string(let s):
            guard let i = Int64(s) else { throw StorageEvalError(.badArgument("int(): not an integer string")) }
            return .int(i)
        default: throw StorageEvalError.type("int()", v)
        }
    }

    /// `float(x)`: ints widened, numeric strings parsed.
    static func toFloat(_ v: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .float: return v
        case .int(let i): return .float(Double(i))
        case .string(let s):
            guard let d = Double(s) else { throw StorageEvalError(.badArgument("float(): not a number string")) }
            return .float(d)
        default: throw StorageEvalError.type("float()", v)
        }
    }

    /// `string(x)`: `"true"`, `"1"`, `"2.0"`, `"null"`, paths as `/a/b`, timestamps in RFC 3339,
    /// durations as `1.5s`.
    static func toText(_ v: StorageValue) throws(StorageEvalError) -> StorageValue {
        switch v {
        case .string: return v
        case .null: return .string("null")
        case .bool(let b): return .string(b ? "true" : "false")
        case .int(let i): return .string(String(i))
        case .float(let d): return .string(d.description)
        case .path(let p): return .string(p.description)
        case .timestamp(let t): return .string(t.rfc3339)
        case .duration(let d): return .string(d.text)
        default: throw StorageEvalError.type("string()", v)
        }
    }
}
