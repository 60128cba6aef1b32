import Testing
@testable import HearthCore

/// Test conveniences over HearthCore's seedable generator (output for seed 0 starts
/// 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, checked in `splitMix64KnownAnswer`).
extension SplitMix64 {
    /// Uniform in `0..<n` (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next(upperBound: UInt64(n))) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Random JSON documents and strings for property tests.
enum Gen {
    /// Characters chosen to stress escaping and UTF-16 vs scalar handling.
    static let interestingScalars: [Unicode.Scalar] = [
        "a", "Z", "0", "9", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}",
        "\u{7F}", "\u{80}", "é", "ß", "\u{7FF}", "\u{800}", "€", "\u{FEFF}", "\u{FF5E}", "\u{FFFD}", "\u{FFFF}",
        "\u{10000}", "😀", "🐵", "\u{10FFFF}", "-", "_", "+", "%",
    ]

    static func string(_ r: inout SplitMix64, maxLength: Int = 12) -> String {
        var s = String.UnicodeScalarView()
        for _ in 0..<r.below(maxLength + 1) {
            if r.chance(70) {
                s.append(r.pick(interestingScalars))
            } else {
                // Any scalar outside the surrogate range.
                var v = UInt32(r.below(0x110000))
                if (0xD800...0xDFFF).contains(v) { v -= 0x800 }
                s.append(Unicode.Scalar(v)!)
            }
        }
        return String(s)
    }

    static func finiteDouble(_ r: inout SplitMix64) -> Double {
        switch r.below(6) {
        case 0: return Double(r.below(2_000_001) - 1_000_000) / 1000  // short decimals
        case 1: return r.pick([0.1, -0.0, 0.5, 1e-7, .leastNonzeroMagnitude, 2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740992, 9007199254740994, -9007199254740991, 1e21, 123456789.125])
        case 2: return Double(Int64(bitPattern: r.next()))
        default:
            while true {
                let d = Double(bitPattern: r.next())
                if d.isFinite { return d }
            }
        }
    }

    static func int(_ r: inout SplitMix64) -> Int64 {
        switch r.below(4) {
        case 0: return r.pick([0, 1, -1, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 9_007_199_254_740_993])
        case 1: return Int64(r.below(2001) - 1000)
        default: return Int64(bitPattern: r.next())
        }
    }

    static func json(_ r: inout SplitMix64, depth: Int = 0, maxDepth: Int = 5) -> JSONValue {
        let leafOnly = depth >= maxDepth
        switch r.below(leafOnly ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(r.chance(50))
        case 2: return .int(int(&r))
        case 3: return .double(finiteDouble(&r))
        case 4: return .string(string(&r))
        case 5: return .array((0..<r.below(5)).map { _ in json(&r, depth: depth + 1, maxDepth: maxDepth) })
        default:
            return .object((0..<r.below(5)).map { _ in JSONMember(string(&r, maxLength: 6), json(&r, depth: depth + 1, maxDepth: maxDepth)) })
        }
    }

    /// A valid database key (no `. $ # [ ] /`, no control characters), sometimes integer-like.
    static func key(_ r: inout SplitMix64) -> String {
        if r.chance(30) { return String(r.below(40) - 5) }
        while true {
            let s = String(string(&r, maxLength: 6).unicodeScalars.filter { c in
                !(c.value < 0x20 || c.value == 0x7F || ".$#[]/".unicodeScalars.contains(c))
            })
            if !s.isEmpty { return s }
        }
    }

    /// JSON that `Node(json:)` accepts: valid unique keys, optional priorities, no server values.
    static func nodeJSON(_ r: inout SplitMix64, depth: Int = 0, maxDepth: Int = 4, priorities: Bool = true) -> JSONValue {
        func priority() -> JSONValue {
            switch r.below(3) {
            case 0: return .int(Int64(r.below(10)))
            case 1: return .double(Double(r.below(100)) / 8 + 0.0625)
            default: return .string(String(r.pick(["a", "b", "zz", "é"])))
            }
        }
        let leafOnly = depth >= maxDepth
        switch r.below(leafOnly ? 5 : 8) {
        case 0: return .bool(r.chance(50))
        case 1: return .int(int(&r))
        case 2: return .double(finiteDouble(&r))
        case 3: return .string(string(&r))
        case 4:
            if priorities, r.chance(50) {
                return .object([JSONMember(".value", .string(string(&r))), JSONMember(".priority", priority())])
            }
            return .null
        case 5: return .array((0..<r.below(6)).map { _ in nodeJSON(&r, depth: depth + 1, maxDepth: maxDepth, priorities: priorities) })
        default:
            var seen: Set<String> = []
            var members: [JSONMember] = []
            for _ in 0..<r.below(6) {
                let k = key(&r)
                if seen.insert(k).inserted {
                    members.append(JSONMember(k, nodeJSON(&r, depth: depth + 1, maxDepth: maxDepth, priorities: priorities)))
                }
            }
            if priorities, r.chance(30) { members.append(JSONMember(".priority", priority())) }
            return .object(members)
        }
    }
}

/// What the writer's number normalisation does to a value: integral doubles below 2^53 become integers.
func normalisedNumbers(_ v: JSONValue) -> JSONValue {
    switch v {
    case .double(let d) where d == d.rounded() && abs(d) < 9_007_199_254_740_992: return .int(Int64(d))
    case .array(let a): return .array(a.map(normalisedNumbers))
    case .object(let m): return .object(m.map { JSONMember($0.key, normalisedNumbers($0.value)) })
    default: return v
    }
}

func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue.parse(text) }

/// Node from JSON text; a fixture that does not parse is recorded as a test issue (and yields the empty node).
func node(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Node {
    do {
        return try Node(json: JSONValue.parse(text))
    } catch {
        Issue.record("fixture rejected: \(error) — \(text)", sourceLocation: sourceLocation)
        return .empty
    }
}

/// Plain JSON text of a node, re-parsed, so comparisons do not depend on member order or spacing.
func rendered(_ n: Node, _ format: RenderFormat = .plain) -> JSONValue {
    try! JSONValue.parse(n.jsonBytes(format: format))
}

/// Structural equality that ignores object member order (for comparing rendered output with expectations).
func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case let (.object(x), .object(y)):
        guard x.count == y.count else { return false }
        let dx = Dictionary(x.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let dy = Dictionary(y.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        guard dx.count == x.count, dy.count == y.count, Set(dx.keys) == Set(dy.keys) else { return false }
        return dx.allSatisfy { sameJSON($0.value, dy[$0.key]!) }
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    default:
        return a == b
    }
}

func sameJSON(_ a: JSONValue, _ text: String) -> Bool { sameJSON(a, try! JSONValue.parse(text)) }
