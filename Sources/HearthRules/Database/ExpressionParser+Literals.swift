/// Literal tokens of rule expressions: numbers, strings and `matches()` regular expressions.
extension ExpressionParser {
    mutating func numberLiteral() throws(RulesError) -> Double {
        let start = i
        while i < scalars.count, (scalars[i] >= "0" && scalars[i] <= "9") || scalars[i] == "." { i += 1 }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            i += 1
            if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { i += 1 }
            while i < scalars.count, scalars[i] >= "0" && scalars[i] <= "9" { i += 1 }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<i]))
        guard let d = Double(text) else { throw fail("Invalid number \(text)", at: start) }
        if i < scalars.count, let _ = identifierStart(scalars[i]) { throw fail("Invalid number", at: start) }
        return d
    }

    func identifierStart(_ c: Unicode.Scalar) -> Unicode.Scalar? {
        c == "_" || c == "$" || (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") ? c : nil
    }

    mutating func stringLiteral() throws(RulesError) -> String {
        let start = i
        let quote = scalars[i]
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            guard i < scalars.count else { throw fail("Unterminated string", at: start) }
            let c = scalars[i]
            i += 1
            if c == quote { return String(out) }
            if c == "\\" {
                guard i < scalars.count else { throw fail("Unterminated string", at: start) }
                let e = scalars[i]
                i += 1
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "u":
                    guard i + 4 <= scalars.count, let v = UInt32(String(String.UnicodeScalarView(scalars[i..<i + 4])), radix: 16),
                        let s = Unicode.Scalar(v)
                    else { throw fail("Invalid \\u escape", at: i - 2) }
                    out.append(s)
                    i += 4
                default: out.append(e)
                }
            } else {
                out.append(c)
            }
        }
    }

    mutating func regexLiteral() throws(RulesError) -> RuleRegex {
        let start = i
        i += 1
        var pattern = String.UnicodeScalarView()
        var inClass = false
        while true {
            guard i < scalars.count else { throw fail("Unterminated regular expression", at: start) }
            let c = scalars[i]
            i += 1
            if c == "\\" {
                guard i < scalars.count else { throw fail("Unterminated regular expression", at: start) }
                pattern.append(c)
                pattern.append(scalars[i])
                i += 1
                continue
            }
            if c == "[" { inClass = true }
            if c == "]" { inClass = false }
            if c == "/" && !inClass { break }
            pattern.append(c)
        }
        var flags = ""
        while i < scalars.count, (scalars[i] >= "a" && scalars[i] <= "z") || (scalars[i] >= "A" && scalars[i] <= "Z") {
            flags.unicodeScalars.append(scalars[i])
            i += 1
        }
        guard flags.isEmpty || flags == "i" else { throw fail("Unsupported regular expression flag(s) '\(flags)': only i is allowed", at: start) }
        do {
            return try RuleRegex(pattern: String(pattern), ignoreCase: flags == "i")
        } catch {
            throw fail("Invalid regular expression: \(error.message)", at: start + 1 + error.offset)
        }
    }
}
