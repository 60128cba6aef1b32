/// One token of a Storage rules file, with its byte offset in the source.
struct StorageToken: Sendable {
    enum Kind: Equatable, Sendable {
        /// Identifiers and keywords alike (`match`, `allow`, `request`, `true`…).
        case identifier(String)
        /// The magnitude of an integer literal (the parser applies a leading `-`).
        case int(UInt64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        case symbol(Symbol)
        case end
    }

    enum Symbol: String, Sendable {
        case lbrace = "{", rbrace = "}", lparen = "(", rparen = ")", lbracket = "[", rbracket = "]"
        case semicolon = ";", comma = ",", dot = ".", colon = ":", question = "?", bang = "!"
        case and = "&&", or = "||", eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
        case plus = "+", minus = "-", star = "*", slash = "/", percent = "%", assign = "="
    }

    var kind: Kind
    var offset: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .identifier(let s): "'\(s)'"
        case .int(let v): "'\(v)'"
        case .float(let v): "'\(v)'"
        case .string: "a string"
        case .bytes: "a bytes literal"
        case .symbol(let s): "'\(s.rawValue)'"
        case .end: "the end of the file"
        }
    }
}

/// Splits rules source (UTF-8 bytes) into tokens on demand, skipping whitespace and `//` / `/* */`
/// comments. The parser can read raw text from the current position for paths
/// (`match /b/{bucket}/o`, `/users/$(uid)`), whose segments are not ordinary tokens.
struct StorageLexer {
    let bytes: [UInt8]
    let locator: SourceLocator
    /// Next unread byte.
    var pos = 0

    init(_ source: String) {
        bytes = Array(source.utf8)
        locator = SourceLocator(bytes)
    }

    func error(_ message: String, at offset: Int) -> RulesError { locator.error(message, at: offset) }

    func peekByte(_ offset: Int = 0) -> UInt8? {
        pos + offset < bytes.count ? bytes[pos + offset] : nil
    }

    mutating func skipTrivia() throws(RulesError) {
        while pos < bytes.count {
            let b = bytes[pos]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C {
                pos += 1
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "/") {
                while pos < bytes.count, bytes[pos] != 0x0A { pos += 1 }
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                let start = pos
                pos += 2
                while pos < bytes.count, !(bytes[pos] == UInt8(ascii: "*") && peekByte(1) == UInt8(ascii: "/")) { pos += 1 }
                guard pos < bytes.count else { throw error("Unterminated /* comment", at: start) }
                pos += 2
            } else {
                return
            }
        }
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_")
    }

    static func isIdentifierPart(_ b: UInt8) -> Bool { isIdentifierStart(b) || (b >= 0x30 && b <= 0x39) }

    mutating func next() throws(RulesError) -> StorageToken {
        try skipTrivia()
        let start = pos
        guard pos < bytes.count else { return StorageToken(kind: .end, offset: start) }
        let b = bytes[pos]
        if (b == UInt8(ascii: "b") || b == UInt8(ascii: "r") || b == UInt8(ascii: "B") || b == UInt8(ascii: "R")),
            let q = peekByte(1), q == UInt8(ascii: "'") || q == UInt8(ascii: "\"")
        {
            pos += 1
            let raw = b == UInt8(ascii: "r") || b == UInt8(ascii: "R")
            let content = try stringBody(raw: raw, bytesMode: !raw, start: start)
            return StorageToken(kind: raw ? .string(String(decoding: content, as: UTF8.self)) : .bytes(content), offset: start)
        }
        if Self.isIdentifierStart(b) {
            while pos < bytes.count, Self.isIdentifierPart(bytes[pos]) { pos += 1 }
            return StorageToken(kind: .identifier(String(decoding: bytes[start..<pos], as: UTF8.self)), offset: start)
        }
        if b >= 0x30 && b <= 0x39 { return try number(start: start) }
        if b == UInt8(ascii: "."), let d = peekByte(1), d >= 0x30 && d <= 0x39 { return try number(start: start) }
        if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            let content = try stringBody(raw: false, start: start)
            guard let text = String(validating: content, as: UTF8.self) else {
                throw error("A string literal holds invalid UTF-8 (use b'...' for bytes)", at: start)
            }
            return StorageToken(kind: .string(text), offset: start)
        }
        return StorageToken(kind: .symbol(try symbol(start: start)), offset: start)
    }

    private mutating func symbol(start: Int) throws(RulesError) -> StorageToken.Symbol {
        let b = bytes[pos]
        let two = peekByte(1).map { String(decoding: [b, $0], as: UTF8.self) } ?? ""
        if let s = StorageToken.Symbol(rawValue: two), two.count == 2 {
            pos += 2
            return s
        }
        if let s = StorageToken.Symbol(rawValue: String(decoding: [b], as: UTF8.self)) {
            pos += 1
            return s
        }
        if b == UInt8(ascii: "&") || b == UInt8(ascii: "|") {
            throw error("Unexpected '\(Character(Unicode.Scalar(b)))': write \(b == UInt8(ascii: "&") ? "&&" : "||")", at: start)
        }
        if b < 0x80 {
            throw error("Unexpected character '\(Character(Unicode.Scalar(b)))'", at: start)
        }
        throw error("Unexpected character", at: start)
    }
}
