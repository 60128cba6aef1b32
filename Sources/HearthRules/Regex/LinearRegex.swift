/// An RE2-syntax regular expression (the dialect Firebase rules use for `matches`, `replace` and
/// `split`), compiled to a Pike VM program: the one regex engine of HearthRules, used by the storage
/// language, the database language's `matches()` (through `RuleRegex`) and ``WholeMatchPattern``.
///
/// Matching runs in time linear in the input (input length × program size) with no backtracking,
/// so a rule such as `name.matches('(a|aa)*b')` cannot stall the server whatever the request
/// sends. Swift's `Regex` backtracks and can take exponential time on such patterns, which is why
/// it is not used here. No backreferences or lookaround — RE2 has none either.
struct LinearRegex: Sendable {
    struct SyntaxError: Error, Sendable {
        var message: String
        /// Offset in the pattern, in Unicode scalars.
        var offset: Int
    }

    /// Matching used up the work budget it was given (each step of the VM costs one unit per
    /// live thread). Only a caller that passes a finite budget sees it.
    struct BudgetExceeded: Error, Sendable {}

    enum Assertion: Sendable {
        case beginText, endText, beginLine, endLine, wordBoundary, notWordBoundary
    }

    /// One program instruction.
    enum Instruction: Sendable {
        case char(UInt32)
        /// Matches a scalar whose simple case fold equals the operand.
        case charFold(UInt32)
        case any
        case anyButNewline
        case charClass(Int)
        /// Try the first target, then the second (priority order = leftmost-first semantics).
        case split(Int, Int)
        case jump(Int)
        case assert(Assertion)
        case match
    }

    let pattern: String
    let program: [Instruction]
    let classes: [RegexCharClass]

    /// Largest program accepted; `x{1000}` style repetitions count every copy.
    static let maxProgramSize = 20_000
    static let maxRepeat = 1000
    static let maxNesting = 100

    init(_ pattern: String) throws(SyntaxError) {
        var parser = LinearRegexParser(Array(pattern.unicodeScalars))
        let node = try parser.parse()
        var compiler = LinearRegexCompiler()
        try compiler.emit(node)
        compiler.program.append(.match)
        self.pattern = pattern
        program = compiler.program
        classes = compiler.classes
    }

    /// Work units one scan over `length` scalars may cost.
    func cost(length: Int) -> Int { (length + 1) * program.count }

    /// Whether some part of `s` matches (search semantics: unanchored unless the pattern says `^`/`$`).
    func containsMatch(_ s: String, budget: inout Int) throws(BudgetExceeded) -> Bool {
        var vm = LinearRegexVM(regex: self, input: s.unicodeScalars.map(\.value))
        return try vm.firstMatch(from: 0, budget: &budget) != nil
    }

    /// Whether the whole string matches (`string.matches(re)`).
    func matchesWhole(_ s: String, budget: inout Int) throws(BudgetExceeded) -> Bool {
        var vm = LinearRegexVM(regex: self, input: s.unicodeScalars.map(\.value))
        return try vm.matchesWhole(budget: &budget)
    }

    /// Every non-overlapping leftmost-first match, with RE2's rule that an empty match right
    /// after a previous match is skipped.
    func allMatches(_ input: [UInt32], budget: inout Int) throws(BudgetExceeded) -> [Range<Int>] {
        var vm = LinearRegexVM(regex: self, input: input)
        var out: [Range<Int>] = []
        var pos = 0
        var previousEnd = -1
        while pos <= input.count, let m = try vm.firstMatch(from: pos, budget: &budget) {
            var accept = true
            if m.isEmpty {
                if m.lowerBound == previousEnd { accept = false }
                pos = m.upperBound + 1
            } else {
                pos = m.upperBound
            }
            previousEnd = m.upperBound
            if accept { out.append(m) }
        }
        return out
    }

    /// `string.replace(re, sub)`: every match replaced by `sub` taken literally.
    func replacingAll(in s: String, with sub: String, budget: inout Int) throws(BudgetExceeded) -> String {
        let input = s.unicodeScalars.map(\.value)
        var out = String.UnicodeScalarView()
        var last = 0
        for m in try allMatches(input, budget: &budget) {
            out.append(contentsOf: input[last..<m.lowerBound].compactMap(Unicode.Scalar.init))
            out.append(contentsOf: sub.unicodeScalars)
            last = m.upperBound
        }
        out.append(contentsOf: input[last...].compactMap(Unicode.Scalar.init))
        return String(out)
    }

    /// `string.split(re)`: the pieces between matches (Go/RE2 `Split(s, -1)` semantics).
    func split(_ s: String, budget: inout Int) throws(BudgetExceeded) -> [String] {
        let input = s.unicodeScalars.map(\.value)
        if input.isEmpty { return [""] }
        func piece(_ r: Range<Int>) -> String {
            String(String.UnicodeScalarView(input[r].compactMap(Unicode.Scalar.init)))
        }
        var out: [String] = []
        var begin = 0
        var end = 0
        for m in try allMatches(input, budget: &budget) {
            end = m.lowerBound
            if m.upperBound != 0 { out.append(piece(begin..<end)) }
            begin = m.upperBound
        }
        if end != input.count { out.append(piece(begin..<input.count)) }
        return out
    }
}
