extension StorageEvaluator {
    /// String methods: `lower upper matches replace size split toUtf8 trim`. Regex arguments use
    /// RE2 syntax; `matches` tests the whole string.
    mutating func stringMethod(
        _ s: String, _ name: StorageMethodName, _ args: [StorageValue], regex precompiled: LinearRegex?
    ) throws(StorageEvalError) -> StorageValue? {
        switch name {
        case .lower:
            try charge(s.utf8.count / 16 + 1)
            return .string(s.lowercased())
        case .upper:
            try charge(s.utf8.count / 16 + 1)
            return .string(s.uppercased())
        case .size:
            return .int(Int64(s.unicodeScalars.count))
        case .toUtf8:
            return .bytes(Array(s.utf8))
        case .trim:
            return .string(String(s.unicodeScalars.trimmed(by: \.properties.isWhitespace)))
        case .matches:
            let re = try regex(precompiled, args[0])
            do { return .bool(try re.matchesWhole(s, budget: &budget)) } catch { throw StorageEvalError(error) }
        case .replace:
            let re = try regex(precompiled, args[0])
            guard case .string(let sub) = args[1] else { throw StorageEvalError.type("replace(re, sub)", args[1]) }
            let out: String
            do { out = try re.replacingAll(in: s, with: sub, budget: &budget) } catch { throw StorageEvalError(error) }
            try checkSize(out.utf8.count, limit: StorageLimits.maxStringLength)
            return .string(out)
        case .split:
            let re = try regex(precompiled, args[0])
            do { return .list(try re.split(s, budget: &budget).map(StorageValue.string)) } catch { throw StorageEvalError(error) }
        default:
            return nil
        }
    }
}

extension String.UnicodeScalarView {
    /// The view without leading and trailing scalars that satisfy `drop`.
    func trimmed(by drop: (Unicode.Scalar) -> Bool) -> String.UnicodeScalarView {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else {
            return String.UnicodeScalarView()
        }
        return String.UnicodeScalarView(self[first...last])
    }
}
