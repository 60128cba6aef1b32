import Foundation
import HearthCore
import HearthRules
import HearthTestSupport
import Synchronization
import Testing

/// A rules file or a request must never crash or stall the server: catastrophic regexes, runaway
/// recursion, huge values, deep nesting and random garbage all end in a decision or an error.
@Suite("Storage rules safety", .cpuHeavy)
struct StorageRulesSafetyTests {
    static let bucket = "demo-proj.appspot.com"

    /// Rules with one `allow read` condition and an optional prelude of functions.
    func rules(_ condition: String, prelude: String = "") throws(RulesError) -> StorageRules {
        try StorageRules(source: """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                \(prelude)
                match /{name} { allow read: if \(condition); }
              }
            }
            """)
    }

    func get(_ name: String, _ rules: StorageRules) -> StorageRulesDecision {
        rules.evaluate(StorageRulesRequest(method: .get, bucket: Self.bucket, objectName: name, time: 0))
    }

    @Test(arguments: ["(a|aa)*b", "(a*)*b", "(a+)+b", "(x+x+)+y", "(\\\\w+\\\\s?)*$!", "^(a|a?)+$!"])
    func catastrophicPatternsRunInLinearTime(pattern: String) throws {
        // 5 000 characters: a backtracking engine would need ~2^5000 steps on these patterns.
        let rules = try rules("name.matches('\(pattern)')")
        let decision = get(String(repeating: "a", count: 5000), rules)
        #expect(!decision.allowed)
        #expect(decision.reason.contains("was false"), "\(decision.reason)")
    }

    @Test func runawayRecursionStopsAtTheDepthLimit() throws {
        let rules = try rules("loop(0)", prelude: "function loop(n) { return loop(n + 1); }")
        let decision = get("x", rules)
        #expect(!decision.allowed)
        #expect(decision.reason.contains("nested deeper than 20"), "\(decision.reason)")
    }

    @Test func exponentialValuesHitTheSizeCap() throws {
        let rules = try rules("grow([1], 18).size() > 0", prelude: "function grow(l, n) { return n == 0 ? l : grow(l + l, n - 1); }")
        let decision = get("x", rules)
        #expect(!decision.allowed)
        #expect(decision.reason.contains("larger than"), "\(decision.reason)")
    }

    @Test func valuesCannotNestWithoutBound() throws {
        // Each call wraps the value in 30 more lists; equality would otherwise recurse 300 deep.
        let wrap = String(repeating: "[", count: 30) + "x" + String(repeating: "]", count: 30)
        let prelude = "function wrap(x, n) { return n == 0 ? x : wrap(\(wrap), n - 1); }"
        let decision = get("x", try rules("wrap(1, 10) == wrap(1, 10)", prelude: prelude))
        #expect(!decision.allowed)
        #expect(decision.reason.contains("nested deeper than 64 levels"), "\(decision.reason)")
        #expect(get("x", try rules("wrap(1, 2) == wrap(1, 2)", prelude: prelude)).allowed)
    }

    @Test func deeplyNestedClaimsAreCutOff() throws {
        let deep = String(repeating: #"{"a":"#, count: 200) + "1" + String(repeating: "}", count: 200)
        let claims = try JSONValue.parse(#"{"user_id": "u", "nest": "# + deep + "}")
        let tokenRules = try rules("request.auth.token.nest.a.a == request.auth.token.nest.a.a && request.auth.token.nest != null")
        let decision = tokenRules.evaluate(StorageRulesRequest(
            method: .get, bucket: Self.bucket, objectName: "x", auth: StorageRulesAuth(claims: claims), time: 0))
        #expect(decision.allowed, "\(decision.reason)")
    }

    @Test func theWorkBudgetIsAHardStop() throws {
        // 2^19 characters matched against a pattern: more work than one request may do. The
        // budget error is not absorbed by `|| true`, so evaluation ends at once.
        let rules = try rules(
            "text('a', 19).matches('(a|b|c|d|e)*f') || true",
            prelude: "function text(s, n) { return n == 0 ? s : text(s + s, n - 1); }")
        let decision = get("x", rules)
        #expect(!decision.allowed)
        #expect(decision.reason.contains("work budget"), "\(decision.reason)")
    }

    @Test func longFlatChainsDoNotRecurseDeeply() throws {
        let terms = Array(repeating: "name == 'x'", count: 5000).joined(separator: " && ")
        #expect(get("x", try rules(terms)).allowed)
        #expect(!get("y", try rules(terms)).allowed)
        let sum = Array(repeating: "1", count: 10_000).joined(separator: " + ")
        #expect(get("x", try rules("\(sum) == 10000")).allowed)
    }

    @Test func nestingUpToTheLimitWorksAndBeyondIsACompileError() throws {
        let ok = String(repeating: "[", count: 60) + "1" + String(repeating: "]", count: 60)
        #expect(get("x", try rules("\(ok) != []")).allowed)
        let deepValue = String(repeating: "[", count: 70) + "1" + String(repeating: "]", count: 70)
        #expect(get("x", try rules("\(deepValue) != []")).reason.contains("nested deeper than 64 levels"))
        let parens = String(repeating: "(", count: 99) + "true" + String(repeating: ")", count: 99)
        #expect(get("x", try rules(parens)).allowed)
        let tooDeep = String(repeating: "(", count: 5000) + "true" + String(repeating: ")", count: 5000)
        #expect(throws: RulesError.self) { try rules(tooDeep) }
        let unary = String(repeating: "!", count: 5000) + "true"
        #expect(throws: RulesError.self) { try rules(unary) }
        let members = "request" + String(repeating: ".a", count: 5000)
        #expect(throws: RulesError.self) { try rules("\(members) == 1") }
    }

    /// Compiling and evaluating at every nesting limit needs a bounded stack: under 256 KiB in
    /// release builds (measured), so a 512 KiB thread — a secondary thread on macOS, where NIO and
    /// the cooperative pool run — has room to spare. Unoptimised builds use frames about ten
    /// times larger, so the debug run of this test gets 8 MiB.
    @Test func worstCaseNestingFitsABoundedStack() {
        #if DEBUG
        let stackSize = 8 << 20
        #else
        let stackSize = 512 << 10
        #endif
        let outcome = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let parens = String(repeating: "(", count: 100) + "true" + String(repeating: ")", count: 100)
            let lists = String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64) + " != []"
            let calls = "f(" + String(repeating: "f(", count: 45) + "1" + String(repeating: ")", count: 46) + " == 1"
            let regex = "'a'.matches('" + String(repeating: "(", count: 99) + "' + 'a' + '" + String(repeating: ")", count: 99) + "')"
            let prelude = """
                function f(x) { return x; }
                function deep(n) { return n <= 0 ? [] : \(String(repeating: "[", count: 40))deep(n - 1)\(String(repeating: "]", count: 40)); }
                """
            var results: [String] = []
            for condition in [parens, lists, calls, regex, "deep(20) != []"] {
                do {
                    let decision = get("x", try rules(condition, prelude: prelude))
                    results.append(decision.allowed ? "allow" : "deny: " + decision.reason)
                } catch {
                    results.append("error: \(error)")
                }
            }
            outcome.withLock { $0 = results }
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        done.wait()
        let results = outcome.withLock { $0 }
        #expect(results.prefix(4) == ["allow", "allow", "allow", "allow"], "\(results)")
        // 20 calls × 40 nested lists exceed the evaluation nesting cap: denied, not crashed.
        #expect(results.last?.contains("evaluation nested deeper than 600") == true, "\(results)")
    }

    @Test func oversizedSourceIsRejected() {
        let big = "// " + String(repeating: "x", count: 300 * 1024) + "\nservice firebase.storage { }"
        #expect(throws: RulesError.self) { try StorageRules(source: big) }
    }

    @Test func manyRecursiveWildcardsMatchWithoutBlowingUp() throws {
        let rules = try StorageRules(source: """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /{a=**}/x/{b=**}/x/{c=**}/x/{d=**}/y { allow read; }
              }
            }
            """)
        let long = Array(repeating: "x", count: 400).joined(separator: "/")
        #expect(!get(long, rules).allowed)
        #expect(get(long + "/y", rules).allowed)
    }

    // MARK: Fuzzing

    static let seeds = [
        StorageRules.defaultSource,
        """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            function ok(x) { let y = x + 1; return y > 1 && request.auth != null; }
            match /users/{uid}/{rest=**} {
              allow read: if ok(1) || resource.metadata.get('public', 'no') == 'yes';
              allow create, update: if request.resource.size < 5 * 1024 * 1024
                && request.resource.contentType.matches('image/(png|jpe?g)')
                && request.time < timestamp.date(2030, 1, 1) + duration.value(1, 'd');
              /* comment */ allow delete: if [1, 2].hasAny([2]) ? /a/$(uid) == path('a/' + uid) : false;
            }
          }
        }
        """,
    ]

    static let fragments = [
        "{", "}", "(", ")", "[", "]", "/", "//", "/*", "*/", "'", "\"", "\\", ";", ":", ",", ".", "?", "!", "&&", "||",
        "==", "=", "**", "{x=**}", "{x}", "$(", "match", "allow", "function", "let", "return", "if", "read", "is",
        "in", "request", "resource", "1e9", "0x", "-", "ü", "\u{1F600}", "\n", " ", "b'", "r'", "'''", "[a-", "(?",
    ]

    /// Deterministic xorshift so failures reproduce.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    @Test func mutatedSourcesNeverCrashAndErrorsPointInside() async {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        for round in 0..<1500 {
            await yieldNowAndThen(round)
            var text = Array(Self.seeds[round % Self.seeds.count])
            for _ in 0..<(1 + random.next(4)) {
                let at = random.next(text.count + 1)
                switch random.next(3) {
                case 0: text.insert(contentsOf: Self.fragments[random.next(Self.fragments.count)], at: at)
                case 1 where !text.isEmpty: text.removeSubrange(at..<min(text.count, at + 1 + random.next(8)))
                default:
                    if !text.isEmpty { text[min(at, text.count - 1)] = Array(Self.fragments[random.next(Self.fragments.count)]).first ?? " " }
                }
            }
            let source = String(text)
            do {
                let rules = try StorageRules(source: source)
                for method in StorageRulesMethod.allCases {
                    _ = rules.evaluate(StorageRulesRequest(
                        method: method, bucket: Self.bucket, objectName: "users/u/a.png", auth: StorageRulesAuth(uid: "u"),
                        resource: StorageRulesResource(bucket: Self.bucket, name: "users/u/a.png", size: 1, contentType: "image/png"),
                        time: 0))
                }
            } catch {
                let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(error.line >= 1 && error.line <= lines.count, "line out of range: \(error)")
                if error.line >= 1 && error.line <= lines.count {
                    #expect(error.column >= 1 && error.column <= lines[error.line - 1].count + 1, "column out of range: \(error)")
                }
                #expect(!error.message.isEmpty)
            }
        }
    }

    static let regexFragments = [
        "a", "b", ".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$", "{2}", "{1,3}", "\\\\d", "\\\\w", "\\\\s",
        "(?i)", "(?:", "[^a]", "[a-z]", "\\\\pL", "\\\\b", "\\\\Q", "\\\\E", "\\\\x41", "[[:alpha:]]", "-", "{",
    ]

    @Test func randomRegexesCompileOrFailCleanly() async {
        var random = Random(state: 42)
        var compiled = 0
        for round in 0..<1500 {
            await yieldNowAndThen(round)
            var pattern = ""
            for _ in 0..<(1 + random.next(8)) { pattern += Self.regexFragments[random.next(Self.regexFragments.count)] }
            let subject = String(repeating: "ab1 ", count: 1 + random.next(30))
            do {
                let rules = try rules("'\(subject)'.matches('\(pattern)') || '\(subject)'.replace('\(pattern)', '-').size() >= 0")
                compiled += 1
                _ = get("x", rules)
            } catch {
                #expect(error.message.contains("regular expression") || error.message.contains("string"), "\(error)")
            }
        }
        #expect(compiled > 100, "only \(compiled) random patterns compiled")
    }
}
