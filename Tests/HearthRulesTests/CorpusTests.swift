import Foundation
import HearthCore
import HearthRules
import Testing

/// The data-driven corpus in `Corpus/*.json`: each group is a rules document and cases with the
/// expected outcome and why, or a document that must not compile.
@Suite("Rules corpus")
struct CorpusTests {
    typealias Group = CorpusGroup

    static let groups = CorpusGroup.load(folder: "Corpus")

    @Test func corpusIsLargeEnough() {
        var cases = 0
        var compileErrors = 0
        for g in Self.groups {
            if case .array(let c)? = g.json["cases"] { cases += c.count }
            if g.json["compileError"] != nil { compileErrors += 1 }
        }
        #expect(cases >= 150, "the corpus has \(cases) cases")
        #expect(compileErrors >= 20, "the corpus has \(compileErrors) compile-error groups")
    }

    @Test(arguments: groups)
    func group(_ g: Group) throws {
        guard case .object = g.json else {
            Issue.record("\(g.file) is not a valid corpus file")
            return
        }
        let source: String
        if let s = g.json["source"]?.stringValue {
            source = s
        } else if let r = g.json["rules"] {
            source = r.jsonString
        } else {
            Issue.record("group has neither rules nor source")
            return
        }
        if g.json["compileError"] != nil {
            do {
                let rules = try RuleSet(source: source)
                Issue.record("compiled but should not: \(rules.source)")
            } catch {
                #expect(error.line >= 1 && error.column >= 1)
                #expect(error.description.hasPrefix("line \(error.line), column \(error.column): "))
                if case .int(let line)? = g.json["line"] { #expect(error.line == Int(line), "\(error)") }
                if let expected = g.json["compileError"]?.stringValue, !expected.isEmpty {
                    #expect(error.message.lowercased().contains(expected.lowercased()), "\(error)")
                }
            }
            return
        }
        let rules: RuleSet
        do {
            rules = try RuleSet(source: source)
        } catch {
            Issue.record("does not compile: \(error)")
            return
        }
        let data = try g.json["data"].map { try Node(json: $0) } ?? .empty
        guard case .array(let cases)? = g.json["cases"] else { return }
        for c in cases {
            let testCase = try RulesTestCase(json: c, defaultData: data)
            let decision = try testCase.evaluate(rules)
            #expect(
                decision.allowed == testCase.expectAllowed,
                "\(testCase.name): expected \(testCase.expectAllowed ? "allow" : "deny") (\(testCase.why ?? "")); got \(decision.reason)")
        }
    }
}
