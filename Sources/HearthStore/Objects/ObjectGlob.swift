/// Cloud Storage's `matchGlob`: `*` (any run without `/`), `**` (any run), `?` (one character
/// but `/`), `[abc]`, `[a-z]`, `[!abc]` and `{one,two}` alternatives.
public struct ObjectGlob: Sendable {
    indirect enum Piece: Sendable {
        case literal(Unicode.Scalar)
        case any  // ?
        case star  // *
        case globstar  // **
        case set([ClosedRange<UInt32>], negated: Bool)
        case choice([[Piece]])
    }

    let pieces: [Piece]

    /// Why a `matchGlob` pattern was refused.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, for the client (never more than the pattern's shape).
        public var description: String
    }

    /// Parses a pattern of at most 1,024 characters; throws ``SyntaxError`` for an unclosed `[` or `{`, a
    /// stray `}`, a reversed range or a trailing `\`.
    public init(_ pattern: String) throws {
        var scalars = Array(pattern.unicodeScalars)[...]
        guard scalars.count <= 1024 else { throw SyntaxError(description: "matchGlob is too long") }
        pieces = try Self.parse(&scalars, inBraces: false)
        if !scalars.isEmpty { throw SyntaxError(description: "unbalanced } in matchGlob") }
    }

    private static func parse(_ s: inout ArraySlice<Unicode.Scalar>, inBraces: Bool) throws -> [Piece] {
        var out: [Piece] = []
        while let c = s.first {
            if inBraces && (c == "," || c == "}") { return out }
            s.removeFirst()
            switch c {
            case "*":
                if s.first == "*" {
                    s.removeFirst()
                    out.append(.globstar)
                } else {
                    out.append(.star)
                }
            case "?": out.append(.any)
            case "\\":
                guard let escaped = s.popFirst() else { throw SyntaxError(description: "matchGlob ends with \\") }
                out.append(.literal(escaped))
            case "[":
                var negated = false
                if s.first == "!" || s.first == "^" {
                    negated = true
                    s.removeFirst()
                }
                var ranges: [ClosedRange<UInt32>] = []
                var first = true
                while let d = s.first, d != "]" || first {
                    first = false
                    s.removeFirst()
                    if s.first == "-", s.count > 1, s[s.index(after: s.startIndex)] != "]" {
                        s.removeFirst()
                        let hi = s.removeFirst()
                        guard d.value <= hi.value else { throw SyntaxError(description: "bad range in matchGlob") }
                        ranges.append(d.value...hi.value)
                    } else {
                        ranges.append(d.value...d.value)
                    }
                }
                guard s.popFirst() == "]" else { throw SyntaxError(description: "unclosed [ in matchGlob") }
                out.append(.set(ranges, negated: negated))
            case "{":
                var options: [[Piece]] = []
                while true {
                    options.append(try parse(&s, inBraces: true))
                    guard let sep = s.popFirst() else { throw SyntaxError(description: "unclosed { in matchGlob") }
                    if sep == "}" { break }
                }
                out.append(.choice(options))
            default: out.append(.literal(c))
            }
        }
        if inBraces { throw SyntaxError(description: "unclosed { in matchGlob") }
        return out
    }

    /// Whether the whole of `name` matches the pattern.
    public func matches(_ name: String) -> Bool {
        return Self.match(pieces[...], Array(name.unicodeScalars), 0, rest: [])
    }

    /// Matches `pieces` then `rest` (the continuation after a brace group) against `text[i...]`,
    /// by backtracking: the GCS API that takes globs is admin-only and names are at most 1024 bytes.
    private static func match(
        _ pieces: ArraySlice<Piece>, _ text: [Unicode.Scalar], _ i: Int, rest: [ArraySlice<Piece>]
    ) -> Bool {
        guard let piece = pieces.first else {
            guard let next = rest.first else { return i == text.count }
            return match(next, text, i, rest: Array(rest.dropFirst()))
        }
        let tail = pieces.dropFirst()
        switch piece {
        case .literal(let c):
            return i < text.count && text[i] == c && match(tail, text, i + 1, rest: rest)
        case .any:
            return i < text.count && text[i] != "/" && match(tail, text, i + 1, rest: rest)
        case .set(let ranges, let negated):
            guard i < text.count else { return false }
            let inSet = ranges.contains { $0.contains(text[i].value) }
            return inSet != negated && match(tail, text, i + 1, rest: rest)
        case .star, .globstar:
            var j = i
            while true {
                if match(tail, text, j, rest: rest) { return true }
                guard j < text.count else { return false }
                if case .star = piece, text[j] == "/" { return false }
                j += 1
            }
        case .choice(let options):
            return options.contains { match($0[...], text, i, rest: [tail] + rest) }
        }
    }
}
