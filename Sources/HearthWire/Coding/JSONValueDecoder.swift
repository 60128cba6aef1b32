public import HearthCore

/// Decodes a `Decodable` value from a ``JSONValue`` under protobuf's JSON mapping, which Google's front end applies
/// to Identity Toolkit requests.
///
/// - JSON `null` is an absent field (an optional decodes as nil).
/// - Integer fields (`Int64`, `Int`, `Int32`, …) take a number that is an exact integer in range, or a decimal string
///   (int64 values travel as strings).
/// - `Double` and `Float` take a number or a numeric string; `Bool` only `true` or `false`; `String` only a string.
/// - Arrays and nested objects decode as Swift arrays and structs; keys the type does not name are ignored, and
///   where a key appears twice the last one counts.
///
/// A value of another type throws ``JSONFieldMismatch`` with the field's path, its proto type and the value. A list
/// whose item has the wrong type is reported at the list, showing the whole list.
///
/// ```swift
/// let request = try JSONValueDecoder().decode(IdentityToolkit.SignUpRequest.self, from: body)
/// ```
public struct JSONValueDecoder: Sendable {
    /// A decoder; it has no settings.
    public init() {}

    /// `type` read from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ProtoJSONDecoder(value: value, path: []).decode(type)
    }
}

/// A list field, for naming its items' proto type when the field is not a list.
protocol RepeatedField {
    static var itemProtoType: String { get }
}

extension Array: RepeatedField {
    static var itemProtoType: String { ProtoJSONDecoder.protoType(of: Element.self) }
}

/// One value being decoded, with its path.
struct ProtoJSONDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let path: [JSONFieldMismatch.Step]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path.map(PathKey.init) }

    /// The proto type name of a Swift field type, for messages.
    static func protoType(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "TYPE_STRING"
        case is Bool.Type: "TYPE_BOOL"
        case is Int64.Type, is Int.Type: "TYPE_INT64"
        case is Int32.Type, is Int16.Type, is Int8.Type: "TYPE_INT32"
        case is UInt64.Type, is UInt.Type: "TYPE_UINT64"
        case is UInt32.Type, is UInt16.Type, is UInt8.Type: "TYPE_UINT32"
        case is Double.Type: "TYPE_DOUBLE"
        case is Float.Type: "TYPE_FLOAT"
        default: "TYPE_MESSAGE"
        }
    }

    func mismatch(_ type: Any.Type) -> JSONFieldMismatch {
        JSONFieldMismatch(path: path, expectedType: Self.protoType(of: type), value: value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw JSONFieldMismatch(path: path, expectedType: "TYPE_MESSAGE", value: value) }
        var byKey: [String: JSONValue] = [:]
        for m in members { byKey[m.key] = m.value }
        return KeyedDecodingContainer(ProtoKeyedContainer<Key>(members: byKey, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw JSONFieldMismatch(path: path, expectedType: "TYPE_MESSAGE", value: value) }
        return ProtoUnkeyedContainer(items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Single value

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(type) }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch(type) }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double { try floating(type) }
    func decode(_ type: Float.Type) throws -> Float { try floating(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A list field holding something else is named by its items' type, as Google names it.
        if let list = type as? any RepeatedField.Type {
            guard case .array = value else { throw JSONFieldMismatch(path: path, expectedType: list.itemProtoType, value: value) }
        }
        return try T(from: self)
    }

    private func integer<N: FixedWidthInteger>(_ type: N.Type) throws -> N {
        let fitted: N? =
            switch value {
            case .int(let i): N(exactly: i)
            case .double(let d): N(exactly: d)
            case .string(let s): N(s)
            default: nil
            }
        guard let fitted else { throw mismatch(type) }
        return fitted
    }

    private func floating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type) throws -> F {
        switch value {
        case .int(let i): return F(i)
        case .double(let d): return F(d)
        case .string(let s):
            guard let f = F(s) else { throw mismatch(type) }
            return f
        default: throw mismatch(type)
        }
    }
}

/// A coding key for a path step.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ step: JSONFieldMismatch.Step) {
        switch step {
        case .key(let key): (stringValue, intValue) = (key, nil)
        case .index(let i): (stringValue, intValue) = ("Index \(i)", i)
        }
    }

    init?(stringValue: String) { (self.stringValue, intValue) = (stringValue, nil) }
    init?(intValue: Int) { (stringValue, self.intValue) = ("Index \(intValue)", intValue) }
}

private struct ProtoKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let path: [JSONFieldMismatch.Step]
    var codingPath: [any CodingKey] { path.map(PathKey.init) }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> ProtoJSONDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return ProtoJSONDecoder(value: value, path: path + [.key(key.stringValue)])
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue].map { $0 == .null } ?? true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(type) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }

    func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { ProtoJSONDecoder(value: .object(members.map { JSONMember($0.key, $0.value) }), path: path) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

/// A list's items. An item of the wrong type is reported at the list (with the whole list as the value); a wrong
/// field inside an item at that field.
private struct ProtoUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let path: [JSONFieldMismatch.Step]
    var codingPath: [any CodingKey] { path.map(PathKey.init) }
    private(set) var currentIndex = 0

    init(items: [JSONValue], path: [JSONFieldMismatch.Step]) {
        self.items = items
        self.path = path
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next<T>(_ decode: (ProtoJSONDecoder) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
        }
        let itemPath = path + [.index(currentIndex)]
        defer { currentIndex += 1 }
        do {
            return try decode(ProtoJSONDecoder(value: items[currentIndex], path: itemPath))
        } catch let wrong as JSONFieldMismatch where wrong.path == itemPath {
            throw JSONFieldMismatch(path: path, expectedType: wrong.expectedType, value: .array(items))
        }
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type) } }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decode(type) } }

    mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
        try next { try $0.container(keyedBy: type) }
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next { try $0.unkeyedContainer() } }
    mutating func superDecoder() throws -> any Decoder { try next { $0 } }
}
