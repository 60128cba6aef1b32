import Foundation
public import HearthCore

/// Encodes an `Encodable` value as a ``JSONValue``, keeping the order in which the value encodes its keys.
///
/// Wire types (the Identity Toolkit answers, say) are plain `Codable` structs: the SDK decodes them with
/// Foundation's `JSONDecoder`, and the server turns them into a `JSONValue` with this encoder so its protocol edge
/// can adjust and write them like any other answer. A synthesized `encode(to:)` writes the stored properties in
/// declaration order and leaves out nil optionals, which is how a field Firebase omits stays absent.
///
/// Settings match the decoder Hearth uses: dates are milliseconds since 1970, `Data` is base64, a `URL` is its
/// absolute string. A non-finite `Double` cannot be written in JSON and throws `EncodingError.invalidValue`.
public struct JSONValueEncoder: Sendable {
    /// An encoder with Hearth's settings.
    public init() {}

    /// `value` as JSON.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let slot = EncodingSlot()
        try EncodingSlot.Writer(slot: slot, codingPath: []).encodeValue(value)
        return slot.json
    }
}

/// Where one value goes while it is being encoded: containers hold their children's slots, so a nested container
/// can still be written after its parent has handed it out (the `Encoder` protocol requires that).
final class EncodingSlot {
    enum Content {
        case empty
        case value(JSONValue)
        case object
        case array
    }

    var content = Content.empty
    /// An object's members in the order first written (when `content` is `.object`). Kept beside `content`, not in
    /// it, so appending never copies the list.
    private var members: [(key: String, slot: EncodingSlot)] = []
    /// An array's items (when `content` is `.array`).
    private var items: [EncodingSlot] = []

    /// The finished value; a slot nothing was written to is an empty object, as Foundation's encoder writes it.
    var json: JSONValue {
        switch content {
        case .empty: return .object([])
        case .value(let v): return v
        case .object: return .object(members.map { JSONMember($0.key, $0.slot.json) })
        case .array: return .array(items.map(\.json))
        }
    }

    /// Makes this slot an object (keeping its members if it is one already).
    func becomeObject() {
        if case .object = content { return }
        (content, members) = (.object, [])
    }

    /// Makes this slot an array (keeping its items if it is one already).
    func becomeArray() {
        if case .array = content { return }
        (content, items) = (.array, [])
    }

    /// The child slot for `key`, made on first use (a key written twice keeps its first place; the later write
    /// replaces the value).
    func member(_ key: String) -> EncodingSlot {
        becomeObject()
        if let found = members.first(where: { $0.key == key }) { return found.slot }
        let child = EncodingSlot()
        members.append((key, child))
        return child
    }

    /// A new slot at the end of this array.
    func appended() -> EncodingSlot {
        becomeArray()
        let child = EncodingSlot()
        items.append(child)
        return child
    }

    /// How many items this array has.
    var count: Int { items.count }

    /// The `Encoder` over one slot; it is also its single-value container.
    struct Writer: Encoder, SingleValueEncodingContainer {
        let slot: EncodingSlot
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            slot.becomeObject()
            return KeyedEncodingContainer(Keyed<Key>(slot: slot, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            slot.becomeArray()
            return Unkeyed(slot: slot, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() { slot.content = .value(.null) }
        func encode(_ value: Bool) { slot.content = .value(.bool(value)) }
        func encode(_ value: String) { slot.content = .value(.string(value)) }
        func encode(_ value: Double) throws { try number(value) }
        func encode(_ value: Float) throws { try number(Double(value)) }
        func encode(_ value: Int) throws { try integer(value) }
        func encode(_ value: Int8) throws { try integer(value) }
        func encode(_ value: Int16) throws { try integer(value) }
        func encode(_ value: Int32) throws { try integer(value) }
        func encode(_ value: Int64) throws { try integer(value) }
        func encode(_ value: UInt) throws { try integer(value) }
        func encode(_ value: UInt8) throws { try integer(value) }
        func encode(_ value: UInt16) throws { try integer(value) }
        func encode(_ value: UInt32) throws { try integer(value) }
        func encode(_ value: UInt64) throws { try integer(value) }
        func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }

        func encodeValue<T: Encodable>(_ value: T) throws {
            switch value {
            case let date as Date: try number(date.timeIntervalSince1970 * 1000)
            case let data as Data: slot.content = .value(.string(data.base64EncodedString()))
            case let url as URL: slot.content = .value(.string(url.absoluteString))
            default: try value.encode(to: self)
            }
        }

        private func integer<N: FixedWidthInteger>(_ value: N) throws {
            if let exact = Int64(exactly: value) {
                slot.content = .value(.int(exact))
            } else {
                // Beyond Int64 (a large UInt64): JSON has one number type, written as a double.
                slot.content = .value(.double(Double(value)))
            }
        }

        private func number(_ value: Double) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) cannot be written in JSON."))
            }
            slot.content = .value(.double(value))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: EncodingSlot
        let codingPath: [any CodingKey]

        private func writer(_ key: Key) -> Writer { Writer(slot: slot.member(key.stringValue), codingPath: codingPath + [key]) }

        mutating func encodeNil(forKey key: Key) { writer(key).encodeNil() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try writer(key).encodeValue(value) }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
            writer(key).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { writer(key).unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { Writer(slot: slot.member("super"), codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { writer(key) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let slot: EncodingSlot
        let codingPath: [any CodingKey]
        var count: Int { slot.count }

        private struct Index: CodingKey {
            var intValue: Int?
            var stringValue: String { "Index \(intValue ?? 0)" }
            init(_ i: Int) { intValue = i }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        private func writer() -> Writer {
            let path = codingPath + [Index(count)]
            return Writer(slot: slot.appended(), codingPath: path)
        }

        mutating func encodeNil() { writer().encodeNil() }
        mutating func encode<T: Encodable>(_ value: T) throws { try writer().encodeValue(value) }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) -> KeyedEncodingContainer<N> { writer().container(keyedBy: type) }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { writer().unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { writer() }
    }
}
