extension LinearRegexParser {
    /// `\` outside a class: a class shorthand, an assertion, `\Q...\E`, or one literal scalar.
    mutating func escape() throws(Failure) -> Node {
        let start = i
        guard i + 1 < p.count else { throw fail("trailing \\") }
        let e = p[i + 1]
        switch e {
        case "b", "B", "A", "z":
            i += 2
            switch e {
            case "b": return .assertion(.wordBoundary)
            case "B": return .assertion(.notWordBoundary)
            case "A": return .assertion(.beginText)
            default: return .assertion(.endText)
            }
        case "Q":
            i += 2
            var items: [Node] = []
            while i < p.count {
                if p[i] == "\\", i + 1 < p.count, p[i + 1] == "E" {
                    i += 2
                    break
                }
                items.append(literal(p[i].value))
                i += 1
            }
            return items.count == 1 ? items[0] : .concat(items)
        default:
            if var cls = try classEscape() {
                cls.foldCase = flags.caseInsensitive
                return .charClass(cls)
            }
            i = start
            return literal(try scalarEscape())
        }
    }

    /// `\d \D \s \S \w \W \pL \p{Lu} \PL` at `i`, consumed; nil (nothing consumed) otherwise.
    mutating func classEscape() throws(Failure) -> RegexCharClass? {
        guard i + 1 < p.count, p[i] == "\\" else { return nil }
        let e = p[i + 1]
        var cls: RegexCharClass
        switch e {
        case "d", "D": cls = .digit
        case "s", "S": cls = .space
        case "w", "W": cls = .word
        case "p", "P":
            let start = i
            i += 2
            var name = ""
            if i < p.count, p[i] == "{" {
                i += 1
                while i < p.count, p[i] != "}" {
                    name.unicodeScalars.append(p[i])
                    i += 1
                }
                guard i < p.count else { throw fail("invalid character class range", at: start) }
                i += 1
            } else if i < p.count {
                name.unicodeScalars.append(p[i])
                i += 1
            }
            var negated = e == "P"
            if name.hasPrefix("^") {
                negated.toggle()
                name.removeFirst()
            }
            guard let members = RegexCharClass.unicodeCategory(name) else {
                throw fail("unsupported Unicode class \\p{\(name)} (general categories only)", at: start)
            }
            var out = RegexCharClass()
            out.categories = [.init(members: members, negated: false)]
            out.negated = negated
            return out
        default: return nil
        }
        i += 2
        cls.negated = e.properties.isUppercase
        return cls
    }

    /// One escaped scalar: `\n`, `\x41`, `\x{263A}`, octal `\012`, or escaped punctuation.
    mutating func scalarEscape() throws(Failure) -> UInt32 {
        let start = i
        guard i + 1 < p.count else { throw fail("trailing \\") }
        let e = p[i + 1]
        i += 2
        switch e {
        case "n": return 0x0A
        case "t": return 0x09
        case "r": return 0x0D
        case "f": return 0x0C
        case "v": return 0x0B
        case "a": return 0x07
        case "x":
            var digits = ""
            if i < p.count, p[i] == "{" {
                i += 1
                while i < p.count, p[i] != "}" {
                    digits.unicodeScalars.append(p[i])
                    i += 1
                }
                guard i < p.count else { throw fail("invalid escape sequence", at: start) }
                i += 1
            } else {
                while i < p.count, digits.count < 2 {
                    digits.unicodeScalars.append(p[i])
                    i += 1
                }
            }
            guard !digits.isEmpty, digits.count <= 8, let v = UInt32(digits, radix: 16), Unicode.Scalar(v) != nil else {
                throw fail("invalid escape sequence", at: start)
            }
            return v
        case "0"..."7":
            // A single non-zero digit would be a backreference, which RE2 does not have.
            if e != "0", !(i < p.count && ("0"..."7").contains(p[i])) {
                throw fail("backreferences are not supported", at: start)
            }
            var v = e.value - 0x30
            var n = 1
            while n < 3, i < p.count, ("0"..."7").contains(p[i]) {
                v = v * 8 + p[i].value - 0x30
                i += 1
                n += 1
            }
            return v
        default:
            if e.isASCII, !e.properties.isAlphabetic, !("0"..."9").contains(e) { return e.value }
            throw fail("invalid escape sequence \\\(e)", at: start)
        }
    }

    /// `[...]`, `[^...]`, with ranges, escapes and `[:alpha:]`-style POSIX classes.
    mutating func charClass() throws(Failure) -> RegexCharClass {
        let open = i
        i += 1
        var cls = RegexCharClass()
        if i < p.count, p[i] == "^" {
            cls.negated = true
            i += 1
        }
        var first = true
        while true {
            guard i < p.count else { throw fail("missing closing ]", at: open) }
            let c = p[i]
            if c == "]", !first {
                i += 1
                break
            }
            first = false
            if c == "[", i + 1 < p.count, p[i + 1] == ":" {
                guard let close = (i + 2..<p.count).first(where: { p[$0] == ":" && $0 + 1 < p.count && p[$0 + 1] == "]" }) else {
                    throw fail("missing closing ]", at: open)
                }
                var name = String(String.UnicodeScalarView(p[(i + 2)..<close]))
                let negated = name.hasPrefix("^")
                if negated { name.removeFirst() }
                guard var posix = RegexCharClass.posix(name) else { throw fail("invalid character class range", at: i) }
                posix.negated = negated
                cls.add(posix)
                i = close + 2
                continue
            }
            if let named = try classEscape() {
                cls.add(named)
                continue
            }
            let lo = try classScalar()
            if i + 1 < p.count, p[i] == "-", p[i + 1] != "]" {
                let rangeStart = i
                i += 1
                let hi = try classScalar()
                guard hi >= lo else { throw fail("invalid character class range", at: rangeStart) }
                cls.ranges.append(lo...hi)
            } else {
                cls.ranges.append(lo...lo)
            }
        }
        return cls
    }

    private mutating func classScalar() throws(Failure) -> UInt32 {
        if p[i] == "\\" { return try scalarEscape() }
        i += 1
        return p[i - 1].value
    }
}
