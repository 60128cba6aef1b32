public import HearthCore

/// One `.indexOn` declaration: the children of every location matching `pattern` are indexed by
/// `index` (a child path such as `score` or `ratings/pos`, or `.value`).
public struct IndexSpec: Sendable, Hashable {
    /// Keys of the rules path; segments starting with `$` match any key.
    public var pattern: [String]
    /// The child path children are ordered by (`score`, `ratings/pos`), or `.value`.
    public var index: String

    /// An index of the children at `pattern` by `index`.
    public init(pattern: [String], index: String) {
        self.pattern = pattern
        self.index = index
    }

    /// Whether `path` is a location this index covers.
    public func matches(_ path: Path) -> Bool {
        path.count == pattern.count && matchesPrefix(of: path.keys[...])
    }

    /// Whether the first keys of `keys` match the start of the pattern (all of `keys` when shorter).
    public func matchesPrefix(of keys: ArraySlice<Key>) -> Bool {
        for (p, k) in zip(pattern, keys) where !(p.hasPrefix("$") || p.utf8.elementsEqual(k.string.utf8)) { return false }
        return true
    }

    /// The child path the index reads, or nil for `.value`.
    public var childPath: Path? { index == ".value" ? nil : Path(index) }

    /// The value a child is ordered by under this index.
    public func value(of child: Node) -> IndexValue {
        guard let p = childPath else { return IndexValue(child) }
        return IndexValue(child.child(at: p))
    }

    /// The index name a query needs: `.value` or the child path.
    public static func name(for order: Query.Order) -> String? {
        switch order {
        case .value: return ".value"
        case .child(let p): return p.keys.map(\.string).joined(separator: "/")
        case .key, .priority: return nil
        }
    }
}

/// An order-preserving byte encoding of index values: null < false < true < numbers < strings < objects.
public enum IndexValueEncoding {
    /// The bytes of `value`; comparing two encodings bytewise gives `IndexValue.compare`'s order (numbers as doubles, -0 with 0, strings by UTF-16 code units).
    public static func encode(_ value: IndexValue) -> [UInt8] {
        switch value {
        case .null: return [0x00]
        case .object: return [0x05]
        case .leaf(.bool(false)): return [0x01]
        case .leaf(.bool(true)): return [0x02]
        case .leaf(.string(let s)):
            var out: [UInt8] = [0x04]
            PathEncoding.appendUTF16(s, to: &out)
            return out
        case .leaf(let number):
            var d = number.doubleValue!
            if d == 0 { d = 0 }  // -0 sorts with 0
            var bits = d.bitPattern
            bits = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            var out: [UInt8] = [0x03]
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(bits >> UInt64(shift) & 0xFF)) }
            return out
        }
    }
}
