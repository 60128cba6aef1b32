/// A regular expression in RE2 syntax that a whole string must match, matched in time linear in
/// the string (the same Pike VM as rules' `matches`), so a pattern from a configuration file
/// cannot be made to run for long by the strings a client sends.
///
/// ```swift
/// let pattern = try WholeMatchPattern(#"https://example\.com/.*"#)
/// pattern.matches("https://example.com/welcome")   // true
/// pattern.matches("https://example.com.evil.io/")  // false
/// ```
public struct WholeMatchPattern: Sendable {
    /// The pattern as written.
    public let pattern: String
    let regex: LinearRegex

    /// A pattern that does not compile: what is wrong, and where (in Unicode scalars).
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the pattern.
        public var message: String
        /// Where in the pattern, in Unicode scalars from its start.
        public var offset: Int
        /// The message and the offset.
        public var description: String { "\(message) at offset \(offset)" }
    }

    /// Compiles `pattern` (RE2 syntax); a syntax error names its offset.
    public init(_ pattern: String) throws(SyntaxError) {
        do {
            regex = try LinearRegex(pattern)
        } catch {
            throw SyntaxError(message: error.message, offset: error.offset)
        }
        self.pattern = pattern
    }

    /// Whether all of `s` matches (`^` and `$` are implied).
    public func matches(_ s: String) -> Bool {
        // Linear in the input: no budget is needed.
        var budget = Int.max
        return (try? regex.matchesWhole(s, budget: &budget)) ?? false
    }
}
