import ArgumentParser
import Foundation
import HearthCore
import HearthRules

/// `hearth rules check|test`: work on a rules file without a server.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Check a Realtime Database rules file, or run table-driven cases against it.",
        subcommands: [Check.self, Test.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse and type-check a rules file; errors name the line and column.")

        @Argument(help: "The rules file (JSON with comments, {\"rules\": {...}}).")
        var file: String

        func run() throws {
            let rules = try loadRules(file)
            print("\(file): ok (\(rules.rules.count) rules)")
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate table-driven cases against a rules file; exits 7 on any mismatch.",
            discussion: """
                CASES is a JSON file: {"data": <database before each case, optional>, "cases": [ ... ]} \
                or just the array of cases. A case: {"name", "why"?, "auth"? (the rules' auth variable; \
                omitted or null = signed out), "op": "read" | "set" | "update", "path": "/a/b", \
                "value" (set; null deletes; {".sv": "timestamp"} allowed), "values" (update: {"rel/path": value}), \
                "query" (read: REST parameters such as {"orderBy": "\\"$key\\"", "limitToFirst": "2"}), \
                "data"? (overrides the file's data), "now"? (ms), "expect": "allow" | "deny"}. \
                See docs/rules.md.
                """)

        @Argument(help: "The rules file.")
        var file: String

        @Argument(help: "The cases file (JSON).")
        var cases: String

        @Flag(help: "Print the rule that decided every case, not only failures.")
        var verbose = false

        func run() throws {
            let rules = try loadRules(file)
            let json = try loadJSON(cases)
            var data = Node.empty
            let list: [JSONValue]
            switch json {
            case .array(let items): list = items
            case .object:
                guard case .array(let items)? = json["cases"] else { throw failure("\(cases): expected a \"cases\" array") }
                list = items
                if let d = json["data"] {
                    do { data = try Node(json: d) } catch { throw failure("\(cases): invalid \"data\": \(error.message)") }
                }
            default: throw failure("\(cases): expected an object with \"cases\" or an array of cases")
            }
            var failed = 0
            for (i, item) in list.enumerated() {
                let testCase: RulesTestCase
                do {
                    testCase = try RulesTestCase(json: item, defaultData: data)
                } catch {
                    throw failure("\(cases): case \(i + 1): \(error.message)")
                }
                let decision: RuleDecision
                do {
                    decision = try testCase.evaluate(rules)
                } catch {
                    throw failure("\(cases): case \(i + 1): \(error.message)")
                }
                let ok = decision.allowed == testCase.expectAllowed
                if !ok { failed += 1 }
                if !ok || verbose {
                    let outcome = decision.allowed ? "allowed" : "denied"
                    print("\(ok ? "ok  " : "FAIL") \(testCase.name): \(outcome) — \(decision.reason)")
                    if !ok, let why = testCase.why { print("     expected \(testCase.expectAllowed ? "allow" : "deny"): \(why)") }
                }
            }
            print("\(list.count - failed) of \(list.count) cases as expected")
            if failed > 0 { throw ExitCode.rulesFailed }
        }
    }
}

private func failure(_ message: String) -> ExitCode { fail(message, .rulesFailed) }

private func loadText(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else { throw failure("cannot read \(path)") }
    guard let text = String(data: data, encoding: .utf8) else { throw failure("\(path) is not UTF-8 text") }
    return text
}

private func loadRules(_ path: String) throws -> RuleSet {
    let text = try loadText(path)
    do {
        return try RuleSet(source: text)
    } catch {
        throw failure("\(path):\(error.line):\(error.column): \(error.message)")
    }
}

private func loadJSON(_ path: String) throws -> JSONValue {
    let text = try loadText(path)
    do {
        return try JSONValue.parse(text)
    } catch {
        throw failure("\(path): invalid JSON (\(error))")
    }
}
