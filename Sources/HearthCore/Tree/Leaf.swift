/// A primitive value stored at a leaf, or a priority.
///
/// Integral doubles of safe magnitude are normalised to `.int`, so `2.0` and `2` are one value.
public enum Leaf: Sendable, Hashable {
    /// A boolean.
    case bool(Bool)
    /// An integer, or an integral double within ±2^53 (see ``number(_:)``).
    case int(Int64)
    /// A number that is not integral or lies beyond ±2^53.
    case double(Double)
    /// A string.
    case string(String)

    /// Normalising constructor for numbers.
    public static func number(_ d: Double) -> Leaf {
        if d == d.rounded(), abs(d) < 9.007_199_254_740_992e15 { return .int(Int64(d)) }
        return .double(d)
    }

    /// True for `.int` and `.double`.
    public var isNumber: Bool {
        switch self {
        case .int, .double: return true
        default: return false
        }
    }

    /// The number as a `Double` (an `Int64` beyond 2^53 is rounded); nil for booleans and strings.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The leaf as a JSON value.
    public var json: JSONValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        }
    }

    /// The leaf for a JSON primitive, nil for null, arrays and objects.
    public init?(json: JSONValue) {
        switch json {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        default: return nil
        }
    }

    /// Cross-type rank: false/true < numbers < strings.
    var rank: Int {
        switch self {
        case .bool(false): return 1
        case .bool(true): return 2
        case .int, .double: return 3
        case .string: return 4
        }
    }

    /// Firebase value order between two primitives. Numbers compare as IEEE doubles, as Firebase's
    /// servers and SDKs do (so 2^63-1 and 2^63-2 tie and are ordered by key).
    public static func compare(_ a: Leaf, _ b: Leaf) -> Int {
        let (ra, rb) = (a.rank, b.rank)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case let (.string(x), .string(y)): return compareUTF16(x, y)
        case (.bool, .bool): return 0
        default:
            let (x, y) = (a.doubleValue!, b.doubleValue!)
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }
}
