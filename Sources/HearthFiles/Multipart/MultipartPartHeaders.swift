/// The header fields of one part of a multipart body, in order; names compare
/// case-insensitively (RFC 2045), values are decoded as UTF-8.
public struct MultipartPartHeaders: Sendable, Hashable {
    /// One `name: value` line (obsolete line folding already undone).
    public struct Field: Sendable, Hashable {
        /// The field name as sent.
        public var name: String
        /// The value, without surrounding white space.
        public var value: String

        /// A field with this name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in the order received.
    public var fields: [Field]

    /// Headers made of these fields.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// The first field with this name (case-insensitive).
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// The part's `Content-Type`, if given (`application/json; charset=utf-8`).
    public var contentType: String? { self["content-type"] }

    /// The parsed `Content-Disposition` (`form-data; name="file"; filename="a.png"`).
    public var contentDisposition: MIMEHeaderValue? {
        self["content-disposition"].map(MIMEHeaderValue.init(parsing:))
    }

    /// The form field name of a `multipart/form-data` part.
    public var name: String? { contentDisposition?["name"] }

    /// The file name of a `multipart/form-data` part: `filename*` (RFC 8187, UTF-8) when
    /// present and decodable, else `filename`.
    public var filename: String? {
        guard let disposition = contentDisposition else { return nil }
        if let extended = disposition["filename*"], let decoded = Self.decodeExtendedValue(extended) {
            return decoded
        }
        return disposition["filename"]
    }

    /// Decodes `UTF-8''na%C3%AFve.txt` (charset, optional language, percent-encoded bytes).
    static func decodeExtendedValue(_ text: String) -> String? {
        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].caseInsensitiveEquals("utf-8") else { return nil }
        var bytes: [UInt8] = []
        var input = pieces[2].utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, as header names and charsets use.
    func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
        }
    }
}
