/// A header value with parameters, such as `Content-Type` or `Content-Disposition`:
/// `multipart/related; boundary="===============123=="`.
///
/// Parameter values may be tokens or quoted strings (backslash escapes are undone, RFC 9110
/// §5.6.4); parameter names are compared case-insensitively. Parsing is lenient: pieces that
/// are not `name=value` are skipped.
///
/// ```swift
/// let type = MIMEHeaderValue(parsing: "multipart/related; boundary=\"a b\"")
/// type.value                   // "multipart/related"
/// type["boundary"]             // "a b"
/// ```
public struct MIMEHeaderValue: Sendable, Hashable {
    /// The part before the first `;`, trimmed and lower-cased (`multipart/form-data`).
    public var value: String
    /// Parameters in order, names lower-cased.
    public var parameters: [(name: String, value: String)] {
        zip(names, values).map { ($0, $1) }
    }

    private var names: [String] = []
    private var values: [String] = []

    /// The first parameter with this name (case-insensitive).
    public subscript(name: String) -> String? {
        let name = name.lowercased()
        return names.firstIndex(of: name).map { values[$0] }
    }

    /// Parses a header value; never fails (unparsable pieces are skipped).
    public init(parsing text: String) {
        var scanner = Scanner(Array(text.utf8))
        value = scanner.token(until: [.semicolon]).lowercased()
        while scanner.skip(.semicolon) {
            let name = scanner.token(until: [.semicolon, .equals]).lowercased()
            guard scanner.skip(.equals) else { continue }
            scanner.skipSpace()
            let value = scanner.peek == .quote ? scanner.quotedString() : scanner.token(until: [.semicolon])
            if !name.isEmpty {
                names.append(name)
                values.append(value)
            }
        }
    }

    /// Walks the UTF-8 bytes of a header value.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Skips optional white space, then `byte` if it is next.
        mutating func skip(_ byte: UInt8) -> Bool {
            skipSpace()
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpace() {
            while let b = peek, b == .space || b == .tab { index += 1 }
        }

        /// Bytes up to (not including) any of `stops`, trimmed.
        mutating func token(until stops: [UInt8]) -> String {
            skipSpace()
            let start = index
            while let b = peek, !stops.contains(b) { index += 1 }
            var end = index
            while end > start, bytes[end - 1] == .space || bytes[end - 1] == .tab { end -= 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }

        /// A quoted string starting at the current `"`; an unterminated one runs to the end.
        mutating func quotedString() -> String {
            index += 1
            var out: [UInt8] = []
            while let b = peek {
                index += 1
                if b == .quote { break }
                if b == .backslash, let escaped = peek {
                    out.append(escaped)
                    index += 1
                } else {
                    out.append(b)
                }
            }
            // Skip anything between the closing quote and the next parameter.
            while let b = peek, b != .semicolon { index += 1 }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
