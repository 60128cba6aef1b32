import HearthCore
import HearthRules
import HearthTestSupport
import Testing

/// Random and mutated rules documents: the compiler must never crash or hang, and every rejection
/// must point inside the document.
@Suite("Rules parser fuzzing", .cpuHeavy)
struct ParserFuzzTests {
    static let seeds: [String] = [
        #"{"rules": {".read": "auth != null", ".write": false}}"#,
        """
        {
          // comment
          "rules": {
            "users": {
              "$uid": {
                ".read": "auth.uid === $uid || root.child('admins/' + auth.uid).val() === true",
                ".write": "auth.uid === $uid && (!data.exists() || data.child('locked').val() !== true)",
                ".validate": "newData.hasChildren(['name', 'age']) && newData.child('age').isNumber()",
                /* nested */
                "name": {".validate": "newData.isString() && newData.val().length <= 40 && newData.val().matches(/^[A-Za-z ]+$/i)"},
                ".indexOn": ["age", "name"]
              }
            },
            "msgs": {".read": "query.orderByChild === 'ts' && query.limitToLast <= 50", "$m": {".write": "newData.child('ts').val() == now"}}
          }
        }
        """,
        #"{"rules": {"a": {"$x": {"$y": {".read": "$x + $y == 'ab' ? true : data.parent().getPriority() != null"}}}}}"#,
    ]

    static let fragments = [
        "auth", "root", "data", "newData", "now", "query", "$uid", ".", "(", ")", "[", "]", "'", "\"", "/", "//", "/*", "*/",
        "==", "===", "!=", "!", "&&", "||", "?", ":", "+", "-", "*", "%", "<", "<=", ">", ">=", ",", "{", "}", "\\",
        "child(", "val()", "exists()", "hasChildren([", "matches(/", "/i)", "length", "1e9", "0.5", "null", "true", "ü", "\u{1F600}",
        "\n", " ", "\".read\":", "\"$a\":", "\".validate\":", "\"rules\":",
    ]

    func check(_ source: String) {
        do {
            _ = try RuleSet(source: source)
        } catch {
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(error.line >= 1 && error.line <= lines.count, "line \(error.line) outside \(lines.count) lines: \(error)")
            if error.line >= 1 && error.line <= lines.count {
                #expect(error.column >= 1 && error.column <= lines[error.line - 1].count + 1, "column out of range: \(error)")
            }
            #expect(!error.message.isEmpty)
        }
    }

    @Test func seedsCompile() throws {
        for s in Self.seeds { _ = try RuleSet(source: s) }
    }

    @Test(arguments: 0..<8)
    func mutatedDocuments(seed: UInt64) async {
        var rng = SplitMix64(seed: 0xF022 &+ seed)
        for round in 0..<1500 {
            await yieldNowAndThen(round)
            var scalars = Array(Self.seeds.randomElement(using: &rng)!.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !scalars.isEmpty else { break }
                let at = Int.random(in: 0..<scalars.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: scalars.remove(at: at)
                case 1: scalars.insert(contentsOf: Self.fragments.randomElement(using: &rng)!.unicodeScalars, at: at)
                case 2: scalars[at] = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))
                default:
                    let end = min(scalars.count, at + Int.random(in: 1...30, using: &rng))
                    scalars.removeSubrange(at..<end)
                }
            }
            check(String(String.UnicodeScalarView(scalars)))
        }
    }

    @Test(arguments: 0..<4)
    func randomExpressions(seed: UInt64) async {
        var rng = SplitMix64(seed: 0xE0F5 &+ seed)
        for round in 0..<1500 {
            await yieldNowAndThen(round)
            var expr = ""
            for _ in 0..<Int.random(in: 1...25, using: &rng) { expr += Self.fragments.randomElement(using: &rng)! }
            check("{\"rules\": {\"$uid\": {\".write\": \(JSONValue.string(expr).jsonString)}}}")
        }
    }

    @Test func randomBytes() async {
        var rng = SplitMix64(seed: 77)
        for round in 0..<3000 {
            await yieldNowAndThen(round)
            let bytes = (0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            check(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func deepNestingIsRejectedNotOverflowed() {
        check(#"{"rules": {".read": ""# + String(repeating: "(", count: 5000) + "true" + String(repeating: ")", count: 5000) + "\"}}")
        check(#"{"rules": {".read": ""# + String(repeating: "!", count: 5000) + "true\"}}")
        check(String(repeating: "{\"a\":", count: 3000) + "1" + String(repeating: "}", count: 3000))
    }
}
