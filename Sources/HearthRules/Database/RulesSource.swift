import HearthCore

/// A JSON value from a rules document, remembering where each part came from so that errors in
/// expressions can name a line and column of the document.
struct SourceValue {
    enum Kind {
        case null
        case bool(Bool)
        case number(Double)
        /// The decoded text and, for each of its Unicode scalars (plus one past the end), the byte
        /// offset in the document where it was written.
        case string(String, scalarOffsets: [Int])
        case array([SourceValue])
        case object([(key: String, keyOffset: Int, value: SourceValue)])
    }

    var kind: Kind
    var offset: Int

    /// The value without positions.
    var json: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return d == d.rounded() && abs(d) < 9.0e15 ? .int(Int64(d)) : .double(d)
        case .string(let s, _): return .string(s)
        case .array(let items): return .array(items.map(\.json))
        case .object(let members): return .object(members.map { JSONMember($0.key, $0.value.json) })
        }
    }
}

/// Parses a rules document: JSON plus `//` and `/* */` comments, with byte offsets kept.
struct RulesSourceParser {
    let bytes: [UInt8]
    var i = 0
    let locator: SourceLocator
    private var depth = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
        locator = SourceLocator(bytes)
    }

    static let maxDepth = 64

    mutating func parseDocument() throws(RulesError) -> SourceValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        try skipSpace()
        let value = try parseValue()
        try skipSpace()
        if i < bytes.count { throw locator.error("Unexpected text after the end of the document", at: i) }
        return value
    }

    private mutating func skipSpace() throws(RulesError) {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/"):
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                let start = i
                i += 2
                while i + 1 < bytes.count && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                if i + 1 >= bytes.count { throw locator.error("Unterminated /* comment", at: start) }
                i += 2
            case UInt8(ascii: "/"):
                throw locator.error("Unexpected '/': comments start with // or /*", at: i)
            default: return
            }
        }
    }

    private mutating func parseValue() throws(RulesError) -> SourceValue {
        guard i < bytes.count else { throw locator.error("Unexpected end of the document", at: i) }
        let start = i
        switch bytes[i] {
        case UInt8(ascii: "{"):
            depth += 1
            defer { depth -= 1 }
            if depth > Self.maxDepth { throw locator.error("The document is nested too deeply", at: i) }
            i += 1
            var members: [(key: String, keyOffset: Int, value: SourceValue)] = []
            try skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
                i += 1
                return SourceValue(kind: .object(members), offset: start)
            }
            while true {
                try skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw locator.error("Expected a quoted member name", at: i)
                }
                let keyOffset = i
                guard case .string(let key, _) = try parseString().kind else { fatalError("unreachable") }
                if members.contains(where: { $0.key == key }) {
                    throw locator.error("Duplicate key \"\(key)\"", at: keyOffset)
                }
                try skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw locator.error("Expected ':' after a member name", at: i) }
                i += 1
                try skipSpace()
                let value = try parseValue()
                members.append((key, keyOffset, value))
                try skipSpace()
                guard i < bytes.count else { throw locator.error("Unterminated object", at: start) }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                throw locator.error("Expected ',' or '}' in an object", at: i)
            }
            return SourceValue(kind: .object(members), offset: start)
        case UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            if depth > Self.maxDepth { throw locator.error("The document is nested too deeply", at: i) }
            i += 1
            var items: [SourceValue] = []
            try skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
                i += 1
                return SourceValue(kind: .array(items), offset: start)
            }
            while true {
                try skipSpace()
                items.append(try parseValue())
                try skipSpace()
                guard i < bytes.count else { throw locator.error("Unterminated array", at: start) }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                throw locator.error("Expected ',' or ']' in an array", at: i)
            }
            return SourceValue(kind: .array(items), offset: start)
        case UInt8(ascii: "\""):
            return try parseString()
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            while i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: ".")
                || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") || (bytes[i] >= 0x30 && bytes[i] <= 0x39)
            {
                i += 1
            }
            guard let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else {
                throw locator.error("Invalid number", at: start)
            }
            return SourceValue(kind: .number(d), offset: start)
        default:
            throw locator.error("Unexpected character in JSON", at: i)
        }
    }

    private mutating func literal(_ word: String, _ kind: SourceValue.Kind) throws(RulesError) -> SourceValue {
        let start = i
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, Array(bytes[i..<i + w.count]) == w else {
            throw locator.error("Unexpected word (expected \(word))", at: i)
        }
        i += w.count
        return SourceValue(kind: kind, offset: start)
    }

    private mutating func parseString() throws(RulesError) -> SourceValue {
        let start = i
        i += 1
        var scalars = String.UnicodeScalarView()
        var offsets: [Int] = []
        while true {
            guard i < bytes.count else { throw locator.error("Unterminated string", at: start) }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                offsets.append(i)
                i += 1
                break
            }
            if b < 0x20 { throw locator.error("Control character in a string (use \\n)", at: i) }
            let here = i
            if b == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { throw locator.error("Unterminated string", at: start) }
                let e = bytes[i + 1]
                i += 2
                let scalar: Unicode.Scalar
                switch e {
                case UInt8(ascii: "\""): scalar = "\""
                case UInt8(ascii: "\\"): scalar = "\\"
                case UInt8(ascii: "/"): scalar = "/"
                case UInt8(ascii: "b"): scalar = "\u{08}"
                case UInt8(ascii: "f"): scalar = "\u{0C}"
                case UInt8(ascii: "n"): scalar = "\n"
                case UInt8(ascii: "r"): scalar = "\r"
                case UInt8(ascii: "t"): scalar = "\t"
                case UInt8(ascii: "u"):
                    var code = try hex4(at: here)
                    if (0xD800..<0xDC00).contains(code) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw locator.error("Unpaired surrogate in \\u escape", at: here)
                        }
                        i += 2
                        let low = try hex4(at: here)
                        guard (0xDC00..<0xE000).contains(low) else { throw locator.error("Unpaired surrogate in \\u escape", at: here) }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(code) else { throw locator.error("Invalid \\u escape", at: here) }
                    scalar = s
                default:
                    throw locator.error("Invalid escape in a string", at: here)
                }
                scalars.append(scalar)
                offsets.append(here)
                continue
            }
            // One UTF-8 sequence.
            let length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            guard i + length <= bytes.count,
                let s = String(validating: bytes[i..<i + length], as: UTF8.self)?.unicodeScalars.first
            else { throw locator.error("Invalid UTF-8 in a string", at: i) }
            scalars.append(s)
            offsets.append(here)
            i += length
        }
        return SourceValue(kind: .string(String(scalars), scalarOffsets: offsets), offset: start)
    }

    private mutating func hex4(at escape: Int) throws(RulesError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw locator.error("Invalid \\u escape", at: escape) }
        var v: UInt32 = 0
        for b in bytes[i..<i + 4] {
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw locator.error("Invalid \\u escape", at: escape)
            }
            v = v << 4 | UInt32(d)
        }
        i += 4
        return v
    }
}
