/// The Pike VM: simulates every thread of the program in lock-step over the input, so the work
/// is at most (input length + 1) × program size. Threads are kept in priority order, which gives
/// RE2's leftmost-first match boundaries.
struct LinearRegexVM {
    let regex: LinearRegex
    let input: [UInt32]
    /// `mark[pc] == generation` when pc is already in the list being built.
    private var mark: [Int]
    private var generation = 0
    private var stack: [Int] = []

    private struct Threads {
        var pcs: [Int] = []
        var starts: [Int] = []

        mutating func removeAll() {
            pcs.removeAll(keepingCapacity: true)
            starts.removeAll(keepingCapacity: true)
        }
    }

    init(regex: LinearRegex, input: [UInt32]) {
        self.regex = regex
        self.input = input
        mark = Array(repeating: -1, count: regex.program.count)
    }

    /// Whether a path of the program consumes exactly the whole input.
    mutating func matchesWhole(budget: inout Int) throws(LinearRegex.BudgetExceeded) -> Bool {
        var current = Threads()
        var next = Threads()
        generation += 1
        add(&current, pc: 0, at: 0, start: 0)
        for pos in 0...input.count {
            try charge(current.pcs.count, &budget)
            generation += 1
            next.removeAll()
            for pc in current.pcs {
                if case .match = regex.program[pc] {
                    if pos == input.count { return true }
                } else if pos < input.count, accepts(regex.program[pc], input[pos]) {
                    add(&next, pc: pc + 1, at: pos + 1, start: 0)
                }
            }
            if next.pcs.isEmpty { return false }
            swap(&current, &next)
        }
        return false
    }

    /// The leftmost-first match starting at or after `from`.
    mutating func firstMatch(from: Int, budget: inout Int) throws(LinearRegex.BudgetExceeded) -> Range<Int>? {
        var current = Threads()
        var next = Threads()
        var matched: Range<Int>?
        var pos = from
        generation += 1
        add(&current, pc: 0, at: pos, start: pos)
        while true {
            try charge(current.pcs.count + 1, &budget)
            generation += 1
            next.removeAll()
            threads: for k in 0..<current.pcs.count {
                let pc = current.pcs[k]
                let instruction = regex.program[pc]
                if case .match = instruction {
                    matched = current.starts[k]..<pos
                    break threads  // lower-priority threads lose
                }
                if pos < input.count, accepts(instruction, input[pos]) {
                    add(&next, pc: pc + 1, at: pos + 1, start: current.starts[k])
                }
            }
            if pos >= input.count { break }
            pos += 1
            if matched == nil { add(&next, pc: 0, at: pos, start: pos) }
            if next.pcs.isEmpty, matched != nil { break }
            swap(&current, &next)
        }
        return matched
    }

    private func charge(_ units: Int, _ budget: inout Int) throws(LinearRegex.BudgetExceeded) {
        budget -= units
        if budget < 0 { throw LinearRegex.BudgetExceeded() }
    }

    private func accepts(_ instruction: LinearRegex.Instruction, _ c: UInt32) -> Bool {
        switch instruction {
        case .char(let x): c == x
        case .charFold(let x): RegexCharClass.fold(c) == x
        case .any: true
        case .anyButNewline: c != 0x0A
        case .charClass(let k): regex.classes[k].matches(c)
        default: false
        }
    }

    /// Follows jumps, splits and assertions from `pc` (depth-first, preferred branch first) and
    /// appends the consuming instructions reached.
    private mutating func add(_ list: inout Threads, pc: Int, at pos: Int, start: Int) {
        stack.append(pc)
        while let pc = stack.popLast() {
            guard mark[pc] != generation else { continue }
            mark[pc] = generation
            switch regex.program[pc] {
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let a):
                if holds(a, at: pos) { stack.append(pc + 1) }
            default:
                list.pcs.append(pc)
                list.starts.append(start)
            }
        }
    }

    private func holds(_ a: LinearRegex.Assertion, at pos: Int) -> Bool {
        switch a {
        case .beginText: return pos == 0
        case .endText: return pos == input.count
        case .beginLine: return pos == 0 || input[pos - 1] == 0x0A
        case .endLine: return pos == input.count || input[pos] == 0x0A
        case .wordBoundary, .notWordBoundary:
            let before = pos > 0 && Self.isWord(input[pos - 1])
            let after = pos < input.count && Self.isWord(input[pos])
            return (before != after) == (a == .wordBoundary)
        }
    }

    private static func isWord(_ c: UInt32) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
}
