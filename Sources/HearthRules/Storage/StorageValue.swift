/// A value of the Storage rules language (CEL-like): what every expression evaluates to.
///
/// Equality follows the rules language, not Swift's structure: `1 == 1.0`, maps and sets compare
/// without regard to order, `NaN` equals nothing. `Hashable` agrees with that equality so sets
/// and `toSet()` can deduplicate in linear time.
indirect enum StorageValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([StorageValue])
    /// Unique elements in first-seen order.
    case set([StorageValue])
    case map(StorageMap)
    /// `left.diff(right)`.
    case mapDiff(StorageMap, StorageMap)
    case path(StoragePathValue)
    case timestamp(StorageTimestamp)
    case duration(StorageDuration)
    case latlng(latitude: Double, longitude: Double)

    /// The name `is` uses and errors print.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .set: "set"
        case .map: "map"
        case .mapDiff: "map_diff"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        }
    }

    /// How deeply lists, sets, maps and map diffs nest (scalars are 0), counting no further than
    /// `limit + 1` so the walk stays bounded.
    func depth(limit: Int) -> Int {
        func deepest(_ values: some Sequence<StorageValue>) -> Int {
            var d = 0
            for v in values {
                d = max(d, v.depth(limit: limit - 1))
                if d > limit { break }
            }
            return d
        }
        guard limit >= 0 else { return 1 }
        switch self {
        case .list(let items), .set(let items): return 1 + deepest(items)
        case .map(let m): return 1 + deepest(m.values)
        case .mapDiff(let l, let r): return 1 + max(StorageValue.map(l).depth(limit: limit - 1), StorageValue.map(r).depth(limit: limit - 1))
        default: return 0
        }
    }

    /// Builds a set value, dropping repeated elements (first occurrence wins).
    static func makeSet(_ elements: some Sequence<StorageValue>) -> StorageValue {
        var seen = Set<StorageValue>()
        var out: [StorageValue] = []
        for e in elements where seen.insert(e).inserted { out.append(e) }
        return .set(out)
    }
}

/// A map with string keys that remembers insertion order (for `keys()` and `values()`).
struct StorageMap: Sendable {
    private(set) var keys: [String] = []
    private var storage: [String: StorageValue] = [:]

    init() {}

    init(_ pairs: some Sequence<(String, StorageValue)>) {
        for (k, v) in pairs { self[k] = v }
    }

    var count: Int { keys.count }
    var values: [StorageValue] { keys.map { storage[$0]! } }

    subscript(key: String) -> StorageValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }
}

extension StorageValue: Hashable {
    static func == (a: StorageValue, b: StorageValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.float(x), .float(y)): return x == y
        case let (.int(i), .float(d)), let (.float(d), .int(i)): return Int64(exactly: d) == i
        case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case let (.bytes(x), .bytes(y)): return x == y
        case let (.list(x), .list(y)): return x == y
        case let (.set(x), .set(y)): return x.count == y.count && Set(x) == Set(y)
        case let (.map(x), .map(y)): return x == y
        case let (.mapDiff(x1, x2), .mapDiff(y1, y2)): return x1 == y1 && x2 == y2
        case let (.path(x), .path(y)): return x == y
        case let (.timestamp(x), .timestamp(y)): return x == y
        case let (.duration(x), .duration(y)): return x == y
        case let (.latlng(a1, o1), .latlng(a2, o2)): return a1 == a2 && o1 == o2
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .int(let i):
            // Integers that a Double represents exactly hash like that Double, so 1 and 1.0 agree.
            if let d = Double(exactly: i) { hasher.combine(d) } else { hasher.combine(i) }
        case .float(let d): hasher.combine(d == 0 ? 0.0 : d)
        case .string(let s): for u in s.unicodeScalars { hasher.combine(u.value) }
        case .bytes(let b): hasher.combine(b)
        case .list(let l): hasher.combine(l)
        case .set(let s): hasher.combine(Self.unorderedHash(s.map { $0.hashValue }))
        case .map(let m): hasher.combine(m)
        case .mapDiff(let l, let r):
            hasher.combine(l)
            hasher.combine(r)
        case .path(let p): hasher.combine(p)
        case .timestamp(let t): hasher.combine(t)
        case .duration(let d): hasher.combine(d)
        case .latlng(let a, let o):
            hasher.combine(a)
            hasher.combine(o)
        }
    }

    /// Order-independent combination (sum wraps).
    static func unorderedHash(_ hashes: [Int]) -> Int {
        hashes.reduce(hashes.count) { $0 &+ $1 }
    }
}

extension StorageMap: Hashable {
    static func == (a: StorageMap, b: StorageMap) -> Bool {
        guard a.count == b.count else { return false }
        for k in a.keys {
            guard let y = b[k], let x = a[k], x == y else { return false }
        }
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(StorageValue.unorderedHash(keys.map { k in
            var h = Hasher()
            h.combine(k)
            h.combine(self[k]!)
            return h.finalize()
        }))
    }
}
