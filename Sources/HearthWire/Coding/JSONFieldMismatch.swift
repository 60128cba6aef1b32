public import HearthCore

/// A request field whose JSON value does not have the type its message declares, as ``JSONValueDecoder`` reports it.
///
/// Google's front end refuses such a request with 400 `INVALID_ARGUMENT` and a message naming the field, its proto
/// type and the value (``message``); a server answers with that text instead of reading the field as absent.
public struct JSONFieldMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of a field's path: an object member or an array item.
    public enum Step: Sendable, Hashable {
        /// The member with this key (the wire spelling).
        case key(String)
        /// The item at this index.
        case index(Int)
    }

    /// Where the field is, from the decoded value's root (`users`, `0`, `email`).
    public var path: [Step]
    /// The proto type the field declares: `TYPE_STRING`, `TYPE_BOOL`, `TYPE_INT64`, `TYPE_INT32`, `TYPE_DOUBLE`,
    /// `TYPE_MESSAGE`. A list whose items have the wrong type is reported at the list, with its items' type.
    public var expectedType: String
    /// The value found there.
    public var value: JSONValue

    /// A mismatch at `path`.
    public init(path: [Step], expectedType: String, value: JSONValue) {
        self.path = path
        self.expectedType = expectedType
        self.value = value
    }

    /// The field as Google's messages name it: its key at the top level, else its path (`users[0].email`).
    public var field: String {
        var out = ""
        for step in path {
            switch step {
            case .key(let key): out += out.isEmpty ? key : "." + key
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }

    /// The last key of the path (the field's own name).
    public var key: String {
        for case .key(let key) in path.reversed() { return key }
        return ""
    }

    /// `Invalid value at 'field' (TYPE), value`: the value as its JSON text when that is at most 64 bytes, else
    /// `(N bytes)`.
    public var message: String {
        let bytes = value.jsonBytes
        let shown = bytes.count <= 64 ? String(decoding: bytes, as: UTF8.self) : "(\(bytes.count) bytes)"
        return "Invalid value at '\(field)' (\(expectedType)), \(shown)"
    }

    /// The same mismatch with the first `count` steps of its path dropped (its path inside an item of a list).
    public func dropping(_ count: Int) -> JSONFieldMismatch {
        JSONFieldMismatch(path: Array(path.dropFirst(count)), expectedType: expectedType, value: value)
    }

    /// ``message``.
    public var description: String { message }
}
