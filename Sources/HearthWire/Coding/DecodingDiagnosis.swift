import Foundation
public import HearthCore

/// Names the field behind a decoding failure that Foundation reported without one.
///
/// On Linux, Foundation's `JSONDecoder` reports a number that does not fit its field (`1.5` or `1e30` for an
/// `Int`) as `dataCorrupted("The given data was not valid JSON.")` with an empty coding path, although the JSON is
/// valid. For such an error this decodes the value a second time, over the parsed JSON and with the same settings
/// as Hearth's coders (dates in milliseconds since 1970, `Data` as base64), to find the first field that fails.
public enum DecodingDiagnosis {
    /// `error`, or a more precise error naming the field when `error` is a path-less `dataCorrupted` and a second
    /// pass over `value` finds where decoding `type` fails.
    public static func explained<T: Decodable>(_ error: any Error, decoding type: T.Type, from value: JSONValue) -> any Error {
        guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError, context.codingPath.isEmpty else { return error }
        do {
            _ = try T(from: DiagnosingDecoder(value: value, codingPath: []))
            return error
        } catch let found as DecodingError {
            return found.path.isEmpty ? error : found
        } catch {
            return error
        }
    }
}

extension DecodingError {
    /// The coding path the error names.
    var path: [any CodingKey] {
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return c.codingPath
        case .keyNotFound(let key, let c): return c.codingPath + [key]
        @unknown default: return []
        }
    }
}

/// A `Decoder` over a parsed `JSONValue`, strict about numbers (a value must fit its type exactly). Used only to
/// locate failures; Foundation's `JSONDecoder` does the decoding.
struct DiagnosingDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self, expected: "a dictionary") }
        var byKey: [String: JSONValue] = [:]
        for m in members { byKey[m.key] = m.value }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: byKey, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self, expected: "an array") }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Single value

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(type, expected: "a boolean") }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch(type, expected: "a string") }
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
        // As Hearth's JSONDecoder settings: dates are milliseconds since 1970, data is base64, URLs are strings.
        if type == Date.self { return Date(timeIntervalSince1970: try floating(Double.self) / 1000) as! T }
        if type == Data.self {
            guard let data = Data(base64Encoded: try decode(String.self)) else { throw corrupted("Encountered Data is not valid Base64.") }
            return data as! T
        }
        if type == URL.self {
            guard let url = URL(string: try decode(String.self)) else { throw corrupted("Invalid URL string.") }
            return url as! T
        }
        return try T(from: self)
    }

    private func integer<N: FixedWidthInteger>(_ type: N.Type) throws -> N {
        let fitted: N? =
            switch value {
            case .int(let i): N(exactly: i)
            case .double(let d): N(exactly: d)
            default: throw mismatch(type, expected: "a number")
            }
        guard let fitted else { throw corrupted("The number \(value.jsonString) does not fit in \(type).") }
        return fitted
    }

    private func floating<F: BinaryFloatingPoint>(_ type: F.Type) throws -> F {
        let d: Double
        switch value {
        case .int(let i): d = Double(i)
        case .double(let x): d = x
        default: throw mismatch(type, expected: "a number")
        }
        let fitted = F(d)
        guard fitted.isFinite || !d.isFinite else { throw corrupted("The number \(value.jsonString) does not fit in \(type).") }
        return fitted
    }

    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(expected) but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(expected) but found \(value.jsonString) instead."))
    }

    func corrupted(_ description: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: description))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> DiagnosingDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return DiagnosingDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
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
    func superDecoder() throws -> any Decoder {
        DiagnosingDecoder(value: .object(members.map { JSONMember($0.key, $0.value) }), codingPath: codingPath)
    }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private struct Index: CodingKey {
        var intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private mutating func next() throws -> DiagnosingDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath + [Index(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return DiagnosingDecoder(value: items[currentIndex], codingPath: codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }

    mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> { try next().container(keyedBy: type) }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
