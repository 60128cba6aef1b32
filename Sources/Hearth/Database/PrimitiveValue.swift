public import HearthCore

/// A JSON primitive used as a query bound or a priority: null, a boolean, a number or a string.
///
/// Literals convert directly: `ref.queryOrdered(byChild: "age").queryStarting(atValue: 18)`.
public enum PrimitiveValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// JSON `null`; as a priority it means no priority.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number; it orders with doubles by numeric value.
    case int(Int64)
    /// A number with a fraction.
    case double(Double)
    /// A string; strings sort after every number.
    case string(String)

    /// `"text"` as ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `18` as ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `1.5` as ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` as ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil` as ``null``.
    public init(nilLiteral: ()) { self = .null }

    /// The leaf this stands for (nil for null).
    var leaf: Leaf? {
        switch self {
        case .null: return nil
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .number(d)
        case .string(let s): return .string(s)
        }
    }

    /// The JSON value.
    public var json: JSONValue { leaf?.json ?? .null }

    init(_ leaf: Leaf?) {
        switch leaf {
        case nil: self = .null
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .int(i)
        case .double(let d)?: self = .double(d)
        case .string(let s)?: self = .string(s)
        }
    }
}
