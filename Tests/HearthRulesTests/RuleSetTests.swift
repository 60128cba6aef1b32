import HearthCore
import HearthRules
import Testing

@Suite("Rules engine")
struct RuleSetTests {
    let now: Int64 = 1_700_000_000_000

    func data(_ json: String) -> MemoryRuleData { MemoryRuleData(try! Node(json: JSONValue.parse(json))) }
    func node(_ json: String) -> Node { try! Node(json: JSONValue.parse(json)) }
    func auth(_ uid: String) -> JSONValue { .object([JSONMember("uid", .string(uid))]) }

    @Test func ownerRuleWithValidate() throws {
        let rules = try RuleSet(source: """
            {
              // comments are allowed
              "rules": {
                "users": {
                  "$uid": {
                    ".read": "auth != null",
                    ".write": "auth.uid === $uid",  /* owner only */
                    ".validate": "newData.hasChildren(['name']) && newData.child('name').val().length <= 10"
                  }
                }
              }
            }
            """)
        let db = data(#"{"users":{"bob":{"name":"Bob"}}}"#)
        #expect(rules.canWrite([(Path("users/alice"), node(#"{"name":"Alice"}"#))], auth: auth("alice"), now: now, data: db).allowed)
        #expect(!rules.canWrite([(Path("users/bob"), node(#"{"name":"Eve"}"#))], auth: auth("alice"), now: now, data: db).allowed)
        #expect(!rules.canWrite([(Path("users/alice"), node(#"{"age":3}"#))], auth: auth("alice"), now: now, data: db).allowed)
        #expect(!rules.canWrite([(Path("users/alice"), node(#"{"name":"Alice Wonderland"}"#))], auth: auth("alice"), now: now, data: db).allowed)
        // Deletes skip .validate.
        #expect(rules.canWrite([(Path("users/bob"), .empty)], auth: auth("bob"), now: now, data: db).allowed)
        #expect(rules.canRead(Path("users/bob"), auth: auth("x"), now: now, data: db).allowed)
        #expect(!rules.canRead(Path("users/bob"), auth: nil, now: now, data: db).allowed)
        // Rules are not filters.
        #expect(!rules.canRead(Path("users"), auth: auth("x"), now: now, data: db).allowed)
    }

    @Test func errorsAreLocated() {
        do {
            _ = try RuleSet(source: "{\n  \"rules\": {\n    \".read\": \"auth != null &&\"\n  }\n}")
            Issue.record("should not compile")
        } catch {
            #expect(error.line == 3)
            #expect(error.column > 10)
        }
        for bad in [#""7""#, #""'foo'""#, #""$x == 'a'""#, #""root.child('x') != null""#, #""data['x'].exists()""#, "1"] {
            #expect(throws: RulesError.self, "\(bad)") { try RuleSet(source: #"{"rules":{".read":"# + bad + "}}") }
        }
    }

    @Test func ancestorValidateSeesTheMergedData() throws {
        let rules = try RuleSet(source: #"{"rules":{"p":{".write":"auth != null",".validate":"newData.hasChildren(['x'])"}}}"#)
        #expect(!rules.canWrite([(Path("p/sub/k"), .leaf(.int(1)))], auth: auth("u"), now: now, data: data("null")).allowed)
        #expect(rules.canWrite([(Path("p/sub/k"), .leaf(.int(1)))], auth: auth("u"), now: now, data: data(#"{"p":{"x":1}}"#)).allowed)
    }
}
