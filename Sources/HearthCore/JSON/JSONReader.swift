/// A strict RFC 8259 reader over UTF-8 bytes.
///
/// It never allocates Foundation objects, keeps object member order, bounds nesting depth, rejects
/// NaN/Infinity, lone surrogates and trailing garbage, and distinguishes integers from doubles.
public struct JSONReader {
    /// Maximum container nesting accepted (deeper input is refused, not recursed into).
    public var maxDepth: Int

    /// A reader that refuses input nested deeper than `maxDepth` arrays and objects.
    public init(maxDepth: Int = 512) {
        self.maxDepth = maxDepth
    }

    /// Parses a complete document; whitespace around it is allowed, anything else is an error.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth)
            cursor.skipWhitespace()
            let value = try cursor.readValue(depth: 0)
            cursor.skipWhitespace()
            guard cursor.index == buffer.count else { throw cursor.error("unexpected data after the value") }
            return value
        }
    }

    /// Parses the one value at the start of `bytes` (whitespace before it is skipped) and returns it with
    /// the offset just past it, for formats that put something after a JSON value. What follows is not read.
    public func parsePrefix(_ bytes: [UInt8]) throws(JSONError) -> (value: JSONValue, end: Int) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> (value: JSONValue, end: Int) in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth)
            cursor.skipWhitespace()
            let value = try cursor.readValue(depth: 0)
            return (value, cursor.index)
        }
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON bytes with the default reader.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        try JSONReader().parse(bytes)
    }

    /// Parses a JSON string.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try JSONReader().parse(Array(text.utf8))
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ reason: String) -> JSONError { JSONError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("truncated literal") }
        let start = literal.utf8Start
        for i in 0..<count where bytes[index + i] != start[i] { throw error("invalid literal") }
        index += count
        return value
    }

    mutating func readValue(depth: Int) throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func readObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nesting too deep") }
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try readValue(depth: depth)
            members.append(JSONMember(key, value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    mutating func readArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nesting too deep") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    mutating func readHex4() throws(JSONError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func readString() throws(JSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let s = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8") }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in string") }
            index += 1
        }
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8") }
                return s
            }
            if c < 0x20 { throw error("control character in string") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try readHex4()
                var scalar: UInt32
                if (0xD800...0xDBFF).contains(unit) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("lone high surrogate") }
                    index += 2
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                    scalar = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(unit) {
                    throw error("lone low surrogate")
                } else {
                    scalar = UInt32(unit)
                }
                guard let s = Unicode.Scalar(scalar) else { throw error("invalid code point") }
                out.append(contentsOf: UTF8.encode(s)!)
            default:
                throw error("invalid escape")
            }
        }
        throw error("unterminated string")
    }

    mutating func readNumber() throws(JSONError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("truncated number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        } else {
            throw error("invalid number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("digits expected after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("digits expected in exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw JSONError(offset: start, reason: "number out of range") }
        return .double(d)
    }
}
