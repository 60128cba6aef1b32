extension StorageEvaluator {
    /// Elements of a list or set argument (`hasAll`, `removeAll`, set algebra accept either).
    private static func elements(_ v: StorageValue, _ method: StorageMethodName) throws(StorageEvalError) -> [StorageValue] {
        switch v {
        case .list(let items), .set(let items): return items
        default: throw StorageEvalError.type("\(method.rawValue)()", v)
        }
    }

    /// `concat hasAll hasAny hasOnly join removeAll size toSet`.
    mutating func listMethod(_ items: [StorageValue], _ name: StorageMethodName, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue? {
        switch name {
        case .size: return .int(Int64(items.count))
        case .toSet:
            try charge(items.count)
            return StorageValue.makeSet(items)
        case .concat:
            guard case .list(let other) = args[0] else { throw StorageEvalError.type("concat()", args[0]) }
            try checkSize(items.count + other.count, limit: StorageLimits.maxCollectionSize)
            try charge(other.count)
            return .list(items + other)
        case .join:
            guard case .string(let separator) = args[0] else { throw StorageEvalError.type("join()", args[0]) }
            var parts: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw StorageEvalError.type("join() of a list holding", item) }
                parts.append(s)
            }
            let out = parts.joined(separator: separator)
            try checkSize(out.utf8.count, limit: StorageLimits.maxStringLength)
            return .string(out)
        case .removeAll:
            let other = Set(try Self.elements(args[0], name))
            try charge(items.count + other.count)
            return .list(items.filter { !other.contains($0) })
        case .hasAll, .hasAny, .hasOnly:
            return try membership(items, name, args[0])
        default:
            return nil
        }
    }

    /// `difference hasAll hasAny hasOnly intersection size union`.
    mutating func setMethod(_ items: [StorageValue], _ name: StorageMethodName, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue? {
        switch name {
        case .size: return .int(Int64(items.count))
        case .hasAll, .hasAny, .hasOnly: return try membership(items, name, args[0])
        case .difference, .intersection, .union:
            let other = try Self.elements(args[0], name)
            try charge(items.count + other.count)
            let otherSet = Set(other)
            switch name {
            case .difference: return .set(items.filter { !otherSet.contains($0) })
            case .intersection: return .set(items.filter { otherSet.contains($0) })
            default:
                try checkSize(items.count + other.count, limit: StorageLimits.maxCollectionSize)
                return StorageValue.makeSet(items + other)
            }
        default:
            return nil
        }
    }

    /// `hasAll(x)`: every element of x is here; `hasAny(x)`: some is; `hasOnly(x)`: every element
    /// here is in x.
    private mutating func membership(_ items: [StorageValue], _ name: StorageMethodName, _ arg: StorageValue) throws(StorageEvalError) -> StorageValue {
        let other = try Self.elements(arg, name)
        try charge(items.count + other.count)
        switch name {
        case .hasAll:
            let mine = Set(items)
            return .bool(other.allSatisfy(mine.contains))
        case .hasAny:
            let mine = Set(items)
            return .bool(other.contains(where: mine.contains))
        default:
            let theirs = Set(other)
            return .bool(items.allSatisfy(theirs.contains))
        }
    }

    /// `diff get keys size values`.
    mutating func mapMethod(_ m: StorageMap, _ name: StorageMethodName, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue? {
        switch name {
        case .size: return .int(Int64(m.count))
        case .keys:
            try charge(m.count)
            return .list(m.keys.map(StorageValue.string))
        case .values:
            try charge(m.count)
            return .list(m.values)
        case .diff:
            guard case .map(let other) = args[0] else { throw StorageEvalError.type("diff()", args[0]) }
            return .mapDiff(m, other)
        case .get:
            // A key, or a list of keys descending into nested maps; the default when any is missing.
            let path: [StorageValue]
            switch args[0] {
            case .string: path = [args[0]]
            case .list(let keys): path = keys
            default: throw StorageEvalError.type("get() key", args[0])
            }
            var current = StorageValue.map(m)
            for key in path {
                guard case .string(let k) = key else { throw StorageEvalError.type("get() key", key) }
                guard case .map(let inner) = current, let next = inner[k] else { return args[1] }
                current = next
            }
            return current
        default:
            return nil
        }
    }

    /// `addedKeys affectedKeys changedKeys removedKeys unchangedKeys` of `left.diff(right)`.
    static func mapDiffMethod(_ left: StorageMap, _ right: StorageMap, _ name: StorageMethodName) -> StorageValue? {
        let added = left.keys.filter { right[$0] == nil }
        let removed = right.keys.filter { left[$0] == nil }
        let shared = left.keys.filter { right[$0] != nil }
        let changed = shared.filter { left[$0]! != right[$0]! }
        let keys: [String]
        switch name {
        case .addedKeys: keys = added
        case .removedKeys: keys = removed
        case .changedKeys: keys = changed
        case .unchangedKeys: keys = shared.filter { left[$0]! == right[$0]! }
        case .affectedKeys: keys = added + removed + changed
        default: return nil
        }
        return .set(keys.map(StorageValue.string))
    }
}
