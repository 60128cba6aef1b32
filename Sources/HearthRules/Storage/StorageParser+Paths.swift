extension StorageParser {
    private func byte(_ i: Int) -> UInt8? { i < lexer.bytes.count ? lexer.bytes[i] : nil }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }

    /// Reads `/seg/{name}/{rest=**}` raw from the current `/` token, then moves to the token after.
    mutating func scanMatchPath(into block: inout StorageSyntaxBlock) throws(RulesError) {
        var p = token.offset
        while byte(p) == UInt8(ascii: "/") {
            p += 1
            let segmentStart = p
            if byte(p) == UInt8(ascii: "{") {
                p += 1
                let nameStart = p
                guard let first = byte(p), StorageLexer.isIdentifierStart(first) else {
                    throw error("Expected a wildcard name after '{'", at: p)
                }
                while let b = byte(p), StorageLexer.isIdentifierPart(b) { p += 1 }
                let name = String(decoding: lexer.bytes[nameStart..<p], as: UTF8.self)
                if Self.reservedNames.contains(name) { throw error("'\(name)' is reserved and cannot name a wildcard", at: nameStart) }
                var recursive = false
                if byte(p) == UInt8(ascii: "=") {
                    guard byte(p + 1) == UInt8(ascii: "*"), byte(p + 2) == UInt8(ascii: "*") else {
                        throw error("Expected '**' after '=' in a wildcard ({name=**})", at: p)
                    }
                    p += 3
                    recursive = true
                }
                guard byte(p) == UInt8(ascii: "}") else { throw error("Expected '}' to close the wildcard", at: p) }
                p += 1
                if let b = byte(p), !Self.isSpace(b), b != UInt8(ascii: "/"), b != UInt8(ascii: "{") {
                    throw error("A wildcard must be a whole path segment: match {name} and test the name in a condition", at: segmentStart)
                }
                block.segments.append(recursive ? .recursive(name) : .single(name))
            } else {
                while let b = byte(p), !Self.isSpace(b), b != UInt8(ascii: "/"), b != UInt8(ascii: "{"), b != UInt8(ascii: "}"),
                    b != UInt8(ascii: ";")
                {
                    if b == UInt8(ascii: "*") || b == UInt8(ascii: "$") {
                        throw error("Unexpected '\(Character(Unicode.Scalar(b)))' in a match path: wildcards are {name} or {name=**}", at: p)
                    }
                    p += 1
                }
                guard p > segmentStart else { throw error("Empty path segment in a match path", at: segmentStart) }
                if byte(p) == UInt8(ascii: "{"), let after = byte(p + 1), StorageLexer.isIdentifierStart(after) {
                    throw error("A wildcard must be a whole path segment: match {name} and test the name in a condition", at: segmentStart)
                }
                block.segments.append(.literal(String(decoding: lexer.bytes[segmentStart..<p], as: UTF8.self)))
            }
            block.segmentOffsets.append(segmentStart)
        }
        lexer.pos = p
        try advance()
    }

    /// A path literal in an expression, `/users/$(request.auth.uid)/(default)`, starting at the
    /// current `/` token; the token after it becomes current.
    mutating func pathLiteral(depth: Int) throws(RulesError) -> StorageExpr {
        var parts: [StoragePathPart] = []
        var p = token.offset
        while byte(p) == UInt8(ascii: "/") {
            p += 1
            let segmentStart = p
            if byte(p) == UInt8(ascii: "$"), byte(p + 1) == UInt8(ascii: "(") {
                lexer.pos = p + 2
                try advance()
                let e = try expression(depth: depth + 1)
                guard isSymbol(.rparen) else { throw error("Expected ')' to close $( in a path, found \(token.display)") }
                p = token.offset + 1
                parts.append(.interpolated(e))
                continue
            }
            if byte(p) == UInt8(ascii: "(") {
                while let b = byte(p), b != UInt8(ascii: ")"), !Self.isSpace(b) { p += 1 }
                guard byte(p) == UInt8(ascii: ")") else { throw error("Expected ')' in a path segment", at: segmentStart) }
                p += 1
            }
            while let b = byte(p), Self.isPathCharacter(b) { p += 1 }
            guard p > segmentStart else { throw error("Empty segment in a path literal", at: segmentStart) }
            parts.append(.literal(String(decoding: lexer.bytes[segmentStart..<p], as: UTF8.self)))
        }
        lexer.pos = p
        try advance()
        return .path(parts)
    }

    private static func isPathCharacter(_ b: UInt8) -> Bool {
        StorageLexer.isIdentifierPart(b) || b >= 0x80 || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "~") || b == UInt8(ascii: "%") || b == UInt8(ascii: "@") || b == UInt8(ascii: "+")
    }
}
