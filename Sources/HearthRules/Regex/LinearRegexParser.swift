/// Parses RE2 syntax into a tree: literals, `.`, classes (`[...]`, `\d \s \w`, `[:alpha:]`,
/// `\p{L}`), groups (`(...)`, `(?:...)`, `(?P<n>...)`, flags `(?imsU)` / `(?i:...)`), alternation,
/// repetition (`* + ? {n} {n,} {n,m}`, lazy with `?`), anchors (`^ $ \A \z \b \B`), escapes
/// (`\x41 \x{263A} \n \t \Q...\E`, octal). Backreferences and lookaround are rejected, as in RE2.
struct LinearRegexParser {
    indirect enum Node: Sendable {
        case empty
        case literal(UInt32, fold: Bool)
        case any(dotAll: Bool)
        case charClass(RegexCharClass)
        case concat([Node])
        case alternate([Node])
        case repetition(Node, min: Int, max: Int?, greedy: Bool)
        case assertion(LinearRegex.Assertion)
    }

    struct Flags {
        var caseInsensitive = false
        var dotAll = false
        var multiLine = false
        var ungreedy = false
    }

    let p: [Unicode.Scalar]
    var i = 0
    var flags = Flags()

    init(_ scalars: [Unicode.Scalar]) { p = scalars }

    typealias Failure = LinearRegex.SyntaxError

    func fail(_ message: String, at offset: Int? = nil) -> Failure { Failure(message: message, offset: offset ?? i) }

    mutating func parse() throws(Failure) -> Node {
        let node = try alternation(depth: 0)
        if i < p.count { throw fail("unexpected )") }
        return node
    }

    mutating func alternation(depth: Int) throws(Failure) -> Node {
        guard depth < LinearRegex.maxNesting else { throw fail("expression nests too deeply") }
        var alternatives = [try concatenation(depth: depth)]
        while i < p.count, p[i] == "|" {
            i += 1
            alternatives.append(try concatenation(depth: depth))
        }
        return alternatives.count == 1 ? alternatives[0] : .alternate(alternatives)
    }

    mutating func concatenation(depth: Int) throws(Failure) -> Node {
        var items: [Node] = []
        while i < p.count, p[i] != "|", p[i] != ")" {
            let start = i
            guard var atom = try atom(depth: depth) else { continue }
            if let q = try quantifier() {
                atom = .repetition(atom, min: q.min, max: q.max, greedy: q.greedy)
                if i < p.count, ["*", "+", "?"].contains(p[i]) || (p[i] == "{" && lookRepeat() != nil) {
                    throw fail("bad repetition operator", at: start)
                }
            }
            items.append(atom)
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concat(items))
    }

    /// `*`, `+`, `?` or `{n,m}` after an atom, with an optional lazy `?`.
    mutating func quantifier() throws(Failure) -> (min: Int, max: Int?, greedy: Bool)? {
        guard i < p.count else { return nil }
        var q: (min: Int, max: Int?)
        switch p[i] {
        case "*": q = (0, nil); i += 1
        case "+": q = (1, nil); i += 1
        case "?": q = (0, 1); i += 1
        case "{":
            guard let r = lookRepeat() else { return nil }
            if r.min > LinearRegex.maxRepeat || (r.max ?? 0) > LinearRegex.maxRepeat || (r.max.map { $0 < r.min } ?? false) {
                throw fail("bad repetition operator (at most {\(LinearRegex.maxRepeat)})")
            }
            q = (r.min, r.max)
            i = r.end
        default: return nil
        }
        var greedy = true
        if i < p.count, p[i] == "?" {
            greedy = false
            i += 1
        }
        if flags.ungreedy { greedy.toggle() }
        return (q.min, q.max, greedy)
    }

    /// A well-formed `{n}`, `{n,}` or `{n,m}` at `i` (else `{` is a literal, as in RE2).
    func lookRepeat() -> (min: Int, max: Int?, end: Int)? {
        var j = i + 1
        func number(_ j: inout Int) -> Int? {
            let start = j
            var v = 0
            while j < p.count, p[j].value >= 0x30, p[j].value <= 0x39 {
                v = min(v * 10 + Int(p[j].value - 0x30), 100_000)
                j += 1
            }
            return j > start ? v : nil
        }
        guard let lo = number(&j) else { return nil }
        var hi: Int? = lo
        if j < p.count, p[j] == "," {
            j += 1
            hi = number(&j)
        }
        guard j < p.count, p[j] == "}" else { return nil }
        return (lo, hi, j + 1)
    }

    /// One atom; nil for a bare flag group such as `(?i)`.
    mutating func atom(depth: Int) throws(Failure) -> Node? {
        let c = p[i]
        switch c {
        case "(": return try group(depth: depth)
        case "[":
            var cls = try charClass()
            cls.foldCase = flags.caseInsensitive
            return .charClass(cls)
        case ".":
            i += 1
            return .any(dotAll: flags.dotAll)
        case "^":
            i += 1
            return .assertion(flags.multiLine ? .beginLine : .beginText)
        case "$":
            i += 1
            return .assertion(flags.multiLine ? .endLine : .endText)
        case "\\": return try escape()
        case "*", "+", "?": throw fail("missing argument to repetition operator")
        case "{":
            if lookRepeat() != nil { throw fail("missing argument to repetition operator") }
            i += 1
            return literal(c.value)
        default:
            i += 1
            return literal(c.value)
        }
    }

    func literal(_ c: UInt32) -> Node {
        let fold = flags.caseInsensitive && !RegexCharClass.caseVariants(c).isEmpty
        return .literal(fold ? RegexCharClass.fold(c) : c, fold: fold)
    }

    mutating func group(depth: Int) throws(Failure) -> Node? {
        let open = i
        i += 1
        let saved = flags
        if i < p.count, p[i] == "?" {
            i += 1
            if i < p.count, p[i] == "P" || p[i] == "<" {
                // Named capture: (?P<name>re) or (?<name>re).
                if p[i] == "P" { i += 1 }
                guard i < p.count, p[i] == "<" else { throw fail("invalid named capture", at: open) }
                while i < p.count, p[i] != ">" { i += 1 }
                guard i < p.count else { throw fail("invalid named capture", at: open) }
                i += 1
            } else {
                var enable = true
                var sawFlag = false
                flagLoop: while i < p.count {
                    switch p[i] {
                    case "i": flags.caseInsensitive = enable
                    case "s": flags.dotAll = enable
                    case "m": flags.multiLine = enable
                    case "U": flags.ungreedy = enable
                    case "-":
                        guard enable else { throw fail("invalid flags", at: open) }
                        enable = false
                        i += 1
                        continue flagLoop
                    case ")":
                        guard sawFlag else { throw fail("missing flags", at: open) }
                        // `(?i)`: the flags hold to the end of the enclosing group.
                        i += 1
                        return nil
                    case ":":
                        i += 1
                        break flagLoop
                    default:
                        throw fail("invalid or unsupported Perl syntax (lookaround and backreferences are not RE2)", at: open)
                    }
                    sawFlag = true
                    i += 1
                }
            }
        }
        let inner = try alternation(depth: depth + 1)
        guard i < p.count, p[i] == ")" else { throw fail("missing closing )", at: open) }
        i += 1
        flags = saved
        return inner
    }
}
