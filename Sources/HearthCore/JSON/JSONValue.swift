/// A parsed JSON document, with object members kept in the order they were written.
///
/// Integers that fit in `Int64` stay integers; every other number is a `Double`.
/// ```swift
/// let value = try JSONValue.parse(Array(#"{"a":[1,2.5,"x"]}"#.utf8))
/// ```
public indirect enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case int(Int64)
    /// Any other number (with a fraction or exponent, or too large for `Int64`).
    case double(Double)
    /// A string, escapes decoded.
    case string(String)
    /// An array, elements in order.
    case array([JSONValue])
    /// An object, members in the order written; a repeated name is kept twice.
    case object([JSONMember])

    /// The member named `key`, if this is an object holding one (the last one wins).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The numeric payload as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member name, unescaped.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// A member `key: value`.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
