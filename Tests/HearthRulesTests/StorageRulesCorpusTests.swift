import Foundation
import HearthCore
import HearthRules
import Testing

/// The data-driven corpus in `StorageCorpus/*.json`. Each group is one of:
/// - `source`/`sourceLines` + `cases`: a rules file and requests with the expected outcome;
/// - `conditions` (+ optional `prelude` of functions, `version`): each `if` expression becomes
///   `allow read: if <expr>;` on `/{path=**}` and is checked with a `get`;
/// - `source`/`sourceLines` + `compileError`: a file that must not compile, with the expected
///   message fragment, `line` and `column`.
@Suite("Storage rules corpus")
struct StorageRulesCorpusTests {
    typealias Group = CorpusGroup

    static let groups = CorpusGroup.load(folder: "StorageCorpus")

    static func source(of group: JSONValue) -> String? {
        if let s = group["source"]?.stringValue { return s }
        if case .array(let lines)? = group["sourceLines"] { return lines.compactMap(\.stringValue).joined(separator: "\n") }
        return nil
    }

    /// The rules file a `conditions` entry is checked with.
    static func conditionSource(_ condition: String, prelude: String, version: String) -> String {
        """
        rules_version = '\(version)';
        service firebase.storage {
          match /b/{bucket}/o {
            \(prelude)
            match /{path=**} {
              allow read: if \(condition);
            }
          }
        }
        """
    }

    @Test func corpusIsLargeEnough() {
        var cases = 0
        var compileErrors = 0
        for g in Self.groups {
            if case .array(let c)? = g.json["cases"] { cases += c.count }
            if case .array(let c)? = g.json["conditions"] { cases += c.count }
            if g.json["compileError"] != nil { compileErrors += 1 }
        }
        #expect(cases >= 300, "the storage corpus has \(cases) cases")
        #expect(compileErrors >= 30, "the storage corpus has \(compileErrors) compile-error groups")
    }

    @Test(arguments: groups)
    func group(_ g: Group) throws {
        guard case .object = g.json else {
            Issue.record("\(g.file) is not a valid corpus file")
            return
        }
        if let expected = g.json["compileError"] {
            try checkCompileError(g, expected: expected.stringValue ?? "")
            return
        }
        if case .array(let conditions)? = g.json["conditions"] {
            let prelude = g.json["prelude"]?.stringValue ?? ""
            let version = g.json["version"]?.stringValue ?? "2"
            for c in conditions {
                guard let condition = c["if"]?.stringValue else {
                    Issue.record("a condition has no \"if\"")
                    continue
                }
                let rules: StorageRules
                do {
                    rules = try StorageRules(source: Self.conditionSource(condition, prelude: prelude, version: version))
                } catch {
                    Issue.record("\(condition) does not compile: \(error)")
                    continue
                }
                try check(rules, c, defaults: g.json["defaults"], label: condition)
            }
            return
        }
        guard let source = Self.source(of: g.json) else {
            Issue.record("group has neither source, sourceLines nor conditions")
            return
        }
        let rules: StorageRules
        do {
            rules = try StorageRules(source: source)
        } catch {
            Issue.record("does not compile: \(error)")
            return
        }
        guard case .array(let cases)? = g.json["cases"], !cases.isEmpty else {
            Issue.record("group has no cases")
            return
        }
        for c in cases {
            try check(rules, c, defaults: g.json["defaults"], label: c["name"]?.stringValue ?? "unnamed case")
        }
    }

    private func check(_ rules: StorageRules, _ c: JSONValue, defaults: JSONValue?, label: String) throws {
        let testCase = try StorageCorpusCase(json: c, defaults: defaults)
        let decision = rules.evaluate(testCase.request)
        #expect(
            decision.allowed == testCase.expectAllowed,
            "\(label): expected \(testCase.expectAllowed ? "allow" : "deny") (\(testCase.why ?? "")); got \(decision)")
        if let line = testCase.line {
            #expect(decision.line == line, "\(label): decided by line \(decision.line.map(String.init) ?? "none"), expected \(line)")
        }
    }

    private func checkCompileError(_ g: Group, expected: String) throws {
        guard let source = Self.source(of: g.json) else {
            Issue.record("compile-error group without source")
            return
        }
        do {
            _ = try StorageRules(source: source)
            Issue.record("compiled but should not")
        } catch {
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(error.line >= 1 && error.line <= lines.count, "\(error)")
            #expect(error.description.hasPrefix("line \(error.line), column \(error.column): "))
            if case .int(let line)? = g.json["line"] { #expect(error.line == Int(line), "\(error)") }
            if case .int(let column)? = g.json["column"] { #expect(error.column == Int(column), "\(error)") }
            if !expected.isEmpty { #expect(error.message.lowercased().contains(expected.lowercased()), "\(error)") }
        }
    }
}
