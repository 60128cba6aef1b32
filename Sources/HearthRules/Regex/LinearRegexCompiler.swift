/// Turns a regex tree into Pike VM instructions (Thompson construction). Counted repetitions are
/// expanded, so the program size is capped.
struct LinearRegexCompiler {
    var program: [LinearRegex.Instruction] = []
    var classes: [RegexCharClass] = []

    private func tooLarge() -> LinearRegex.SyntaxError {
        LinearRegex.SyntaxError(message: "expression too large (more than \(LinearRegex.maxProgramSize) instructions)", offset: 0)
    }

    mutating func emit(_ node: LinearRegexParser.Node) throws(LinearRegex.SyntaxError) {
        guard program.count <= LinearRegex.maxProgramSize else { throw tooLarge() }
        switch node {
        case .empty:
            break
        case .literal(let c, let fold):
            program.append(fold ? .charFold(c) : .char(c))
        case .any(let dotAll):
            program.append(dotAll ? .any : .anyButNewline)
        case .charClass(let cls):
            classes.append(cls)
            program.append(.charClass(classes.count - 1))
        case .assertion(let a):
            program.append(.assert(a))
        case .concat(let items):
            for item in items { try emit(item) }
        case .alternate(let alternatives):
            var exits: [Int] = []
            for (k, alternative) in alternatives.enumerated() {
                if k == alternatives.count - 1 {
                    try emit(alternative)
                    break
                }
                let split = program.count
                program.append(.split(split + 1, -1))
                try emit(alternative)
                exits.append(program.count)
                program.append(.jump(-1))
                program[split] = .split(split + 1, program.count)
            }
            for e in exits { program[e] = .jump(program.count) }
        case .repetition(let body, let min, let max, let greedy):
            for _ in 0..<min { try emit(body) }
            if let max {
                // Optional copies; any of them may skip to the end.
                var splits: [Int] = []
                for _ in min..<Swift.max(min, max) {
                    splits.append(program.count)
                    program.append(.split(-1, -1))
                    try emit(body)
                }
                let end = program.count
                for s in splits { program[s] = greedy ? .split(s + 1, end) : .split(end, s + 1) }
            } else {
                let loop = program.count
                program.append(.split(-1, -1))
                try emit(body)
                program.append(.jump(loop))
                let end = program.count
                program[loop] = greedy ? .split(loop + 1, end) : .split(end, loop + 1)
            }
        }
        guard program.count <= LinearRegex.maxProgramSize else { throw tooLarge() }
    }
}
