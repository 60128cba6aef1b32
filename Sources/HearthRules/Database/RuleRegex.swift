/// A `matches()` pattern: the subset of regular expressions Firebase accepts, checked at compile
/// time and matched with search semantics (unanchored unless `^`/`$` are given).
///
/// Matched by `LinearRegex`, the linear-time Pike VM the storage rules use too, never by Swift's
/// `Regex`: that one backtracks (`/^(a+)+$/` against 24 `a`s and a `!` ran for minutes and held
/// every write behind it), works on whole `Character`s (`.` swallowed a letter with any number of
/// combining marks, so `/^.{1,10}$/` let through thousands of code units) and gives `\d`/`\w`
/// Unicode meanings. Here `.` is one Unicode scalar and `\d \w \s` are ASCII, as in JavaScript.
struct RuleRegex: Sendable {
    let regex: LinearRegex
    let pattern: String

    struct Failure: Error {
        var message: String
        /// Offset in the pattern's scalars.
        var offset: Int
    }

    init(pattern: String, ignoreCase: Bool) throws(Failure) {
        try RuleRegex.checkSubset(Array(pattern.unicodeScalars))
        do {
            regex = try LinearRegex(ignoreCase ? "(?i)" + pattern : pattern)
        } catch {
            throw Failure(message: error.message, offset: max(0, error.offset - (ignoreCase ? 4 : 0)))
        }
        self.pattern = pattern
    }

    func matches(_ s: String) -> Bool {
        // Linear in the input, so no budget is needed; an unlimited one never runs out.
        var budget = Int.max
        return (try? regex.containsMatch(s, budget: &budget)) ?? false
    }

    /// Literals, `.`, `* + ?`, `{n}` `{n,}` `{n,m}`, groups, `|`, classes, `\d \D \w \W \s \S`,
    /// escapes; `^` only first and `$` only last; no empty alternatives.
    static func checkSubset(_ p: [Unicode.Scalar]) throws(Failure) {
        if p.isEmpty { throw Failure(message: "empty pattern", offset: 0) }
        var i = 0
        var groupDepth = 0
        var canQuantify = false
        var alternativeStart = true
        while i < p.count {
            let c = p[i]
            switch c {
            case "\\":
                guard i + 1 < p.count else { throw Failure(message: "trailing \\", offset: i) }
                let e = p[i + 1]
                if (e >= "0" && e <= "9") || ["b", "B", "k", "p", "P", "x", "u", "c", "A", "z", "Z", "G"].contains(e) {
                    throw Failure(message: "unsupported escape \\\(e)", offset: i)
                }
                i += 2
                canQuantify = true
                alternativeStart = false
                continue
            case "^":
                if i != 0 { throw Failure(message: "^ is only allowed at the start of the pattern", offset: i) }
                canQuantify = false
            case "$":
                if i != p.count - 1 { throw Failure(message: "$ is only allowed at the end of the pattern", offset: i) }
                canQuantify = false
            case "(":
                if i + 1 < p.count, p[i + 1] == "?" { throw Failure(message: "(? groups are not supported", offset: i) }
                groupDepth += 1
                canQuantify = false
                alternativeStart = true
                i += 1
                continue
            case ")":
                if alternativeStart { throw Failure(message: "empty alternative", offset: i) }
                groupDepth -= 1
                if groupDepth < 0 { throw Failure(message: "unbalanced )", offset: i) }
                canQuantify = true
            case "|":
                if alternativeStart { throw Failure(message: "empty alternative", offset: i) }
                alternativeStart = true
                canQuantify = false
                i += 1
                continue
            case "*", "+", "?":
                if !canQuantify { throw Failure(message: "nothing to repeat before \(c)", offset: i) }
                canQuantify = false
                if i + 1 < p.count, p[i + 1] == "?" || p[i + 1] == "+" { i += 1 }  // lazy/possessive forms
            case "{":
                var j = i + 1
                var text = ""
                while j < p.count, p[j] != "}" {
                    text.unicodeScalars.append(p[j])
                    j += 1
                }
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                let valid = j < p.count && !text.isEmpty && parts.count <= 2 && Int(parts[0]) != nil
                    && (parts.count == 1 || parts[1].isEmpty || Int(parts[1]) != nil)
                if !valid { throw Failure(message: "invalid {n,m} repetition (write \\{ for a literal brace)", offset: i) }
                if !canQuantify { throw Failure(message: "nothing to repeat before {", offset: i) }
                canQuantify = false
                i = j + 1
                alternativeStart = false
                continue
            case "}":
                // A lone closing brace is a literal (`/\{foo}/` matches `{foo}`).
                canQuantify = true
            case "[":
                var j = i + 1
                if j < p.count, p[j] == "^" { j += 1 }
                if j < p.count, p[j] == "]" { j += 1 }
                while j < p.count, p[j] != "]" {
                    if p[j] == "\\" { j += 1 }
                    if p[j...].starts(with: ["[", ":"]) { throw Failure(message: "POSIX classes are not supported", offset: j) }
                    j += 1
                }
                if j >= p.count { throw Failure(message: "unterminated [ class", offset: i) }
                i = j + 1
                canQuantify = true
                alternativeStart = false
                continue
            default:
                canQuantify = true
            }
            alternativeStart = false
            i += 1
        }
        if groupDepth != 0 { throw Failure(message: "unbalanced (", offset: p.count - 1) }
        if alternativeStart { throw Failure(message: "empty alternative", offset: p.count - 1) }
    }
}
