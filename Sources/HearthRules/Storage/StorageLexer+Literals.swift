extension StorageLexer {
    /// The decoded content of a quoted literal starting at `pos` (the quote). Single- or
    /// triple-quoted (`'''...'''` may span lines); `raw` keeps backslashes as written.
    ///
    /// Escapes: `\\ \' \" \` \? \n \r \t \b \f \v \a`, `\xHH`, `\uHHHH`, `\UHHHHHHHH` and octal
    /// `\ooo`. An unknown escape such as `\.` is kept as written, so regex patterns survive.
    mutating func stringBody(raw: Bool, bytesMode: Bool = false, start: Int) throws(RulesError) -> [UInt8] {
        let quote = bytes[pos]
        let triple = peekByte(1) == quote && peekByte(2) == quote
        pos += triple ? 3 : 1
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else { throw error("Unterminated string literal", at: start) }
            let b = bytes[pos]
            if b == quote {
                if !triple {
                    pos += 1
                    return out
                }
                if peekByte(1) == quote, peekByte(2) == quote {
                    pos += 3
                    return out
                }
            }
            if (b == 0x0A || b == 0x0D), !triple { throw error("Unterminated string literal (a newline inside quotes)", at: start) }
            if b == UInt8(ascii: "\\"), !raw {
                try escape(into: &out, bytesMode: bytesMode, start: start)
                continue
            }
            out.append(b)
            pos += 1
        }
    }

    private mutating func escape(into out: inout [UInt8], bytesMode: Bool, start: Int) throws(RulesError) {
        let escapeStart = pos
        guard let e = peekByte(1) else { throw error("Unterminated string literal", at: start) }
        pos += 2
        switch e {
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "v"): out.append(0x0B)
        case UInt8(ascii: "a"): out.append(0x07)
        case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "?"):
            out.append(e)
        case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = e == UInt8(ascii: "x") ? 2 : (e == UInt8(ascii: "u") ? 4 : 8)
            guard pos + count <= bytes.count,
                let v = UInt32(String(decoding: bytes[pos..<pos + count], as: UTF8.self), radix: 16)
            else { throw error("Invalid \\\(Character(Unicode.Scalar(e))) escape: expected \(count) hex digits", at: escapeStart) }
            pos += count
            try appendCodePoint(v, rawByte: bytesMode && count == 2, into: &out, at: escapeStart)
        case UInt8(ascii: "0")...UInt8(ascii: "3"):
            guard pos + 2 <= bytes.count, let v = UInt32(String(decoding: bytes[pos - 1..<pos + 2], as: UTF8.self), radix: 8) else {
                throw error("Invalid octal escape: expected three octal digits", at: escapeStart)
            }
            pos += 2
            try appendCodePoint(v, rawByte: bytesMode, into: &out, at: escapeStart)
        default:
            out.append(UInt8(ascii: "\\"))
            out.append(e)
        }
    }

    /// Appends a code point as UTF-8, or as one raw byte for `\xFF`/octal in a bytes literal.
    private func appendCodePoint(_ v: UInt32, rawByte: Bool, into out: inout [UInt8], at offset: Int) throws(RulesError) {
        if rawByte, v < 0x100 {
            out.append(UInt8(v))
            return
        }
        guard let scalar = Unicode.Scalar(v) else { throw error("Escape is not a Unicode scalar value", at: offset) }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    /// An integer (decimal or `0x` hex) or a float (`1.5`, `.5`, `1e9`, `2.5E-3`).
    mutating func number(start: Int) throws(RulesError) -> StorageToken {
        func digits(_ isDigit: (UInt8) -> Bool) -> Int {
            let from = pos
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
            return pos - from
        }
        let isDecimal: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        if bytes[pos] == UInt8(ascii: "0"), let x = peekByte(1), x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
            pos += 2
            let hexStart = pos
            let count = digits { isDecimal($0) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
            guard count > 0, let v = UInt64(String(decoding: bytes[hexStart..<pos], as: UTF8.self), radix: 16) else {
                throw error("Invalid hexadecimal literal", at: start)
            }
            try checkEnd(start)
            return StorageToken(kind: .int(v), offset: start)
        }
        var isFloat = false
        _ = digits(isDecimal)
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "."), let d = peekByte(1), isDecimal(d) {
            pos += 1
            _ = digits(isDecimal)
            isFloat = true
        }
        if pos < bytes.count, bytes[pos] | 0x20 == UInt8(ascii: "e") {
            let save = pos
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            if digits(isDecimal) == 0 { pos = save } else { isFloat = true }
        }
        try checkEnd(start)
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if isFloat {
            guard let v = Double(text), v.isFinite else { throw error("Invalid number \(text)", at: start) }
            return StorageToken(kind: .float(v), offset: start)
        }
        guard let v = UInt64(text) else { throw error("Integer literal \(text) is too large", at: start) }
        return StorageToken(kind: .int(v), offset: start)
    }

    private func checkEnd(_ start: Int) throws(RulesError) {
        if pos < bytes.count, Self.isIdentifierPart(bytes[pos]) {
            throw error("Invalid number: a letter right after digits", at: start)
        }
    }
}
