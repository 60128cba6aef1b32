import HearthCore
import HearthRules
import Testing

/// The public API around a compiled ruleset: decisions and their reasons, request helpers, the
/// default rules, inspection.
@Suite("Storage rules API")
struct StorageRulesTests {
    static let bucket = "demo-proj.appspot.com"
    static let now: Int64 = 1_700_000_000_000

    static let source = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} {
              allow read: if request.auth != null;
              allow write: if request.auth.uid == uid;
            }
            match /locked/{file} {
              allow get: if resource.metadata.open == 'yes';
            }
          }
        }
        """

    func request(
        _ method: StorageRulesMethod, _ name: String, uid: String? = nil, incoming: StorageRulesResource? = nil,
        existing: StorageRulesResource? = nil
    ) -> StorageRulesRequest {
        StorageRulesRequest(
            method: method, bucket: Self.bucket, objectName: name, auth: uid.map { StorageRulesAuth(uid: $0) },
            resource: incoming, existing: existing, time: Self.now)
    }

    @Test func grantNamesTheStatementAndItsBlock() throws {
        let rules = try StorageRules(source: Self.source)
        let decision = rules.evaluate(request(.get, "users/alice/a.png", uid: "bob"))
        #expect(decision.allowed)
        #expect(decision.line == 5)
        #expect(decision.reason.contains("line 5: allow read: if request.auth != null;"))
        #expect(decision.reason.contains("/b/{bucket}/o/users/{uid}/{file=**}"))
        #expect(decision.description.hasPrefix("allow: "))
    }

    @Test func denialByAFalseConditionNamesTheLastStatementTried() throws {
        let rules = try StorageRules(source: Self.source)
        let incoming = StorageRulesResource(bucket: Self.bucket, name: "users/alice/a.png", size: 3)
        let decision = rules.evaluate(request(.create, "users/alice/a.png", uid: "bob", incoming: incoming))
        #expect(!decision.allowed)
        #expect(decision.line == 6)
        #expect(decision.reason.contains("was false"))
        #expect(decision.description.hasPrefix("deny: "))
    }

    @Test func denialByAnErrorSaysWhatFailed() throws {
        let rules = try StorageRules(source: Self.source)
        let signedOut = rules.evaluate(request(.delete, "users/alice/a.png"))
        #expect(!signedOut.allowed)
        #expect(signedOut.reason.contains("failed: 'uid' read on null"))
        let existing = StorageRulesResource(bucket: Self.bucket, name: "locked/f", size: 1)
        let missingKey = rules.evaluate(request(.get, "locked/f", existing: existing))
        #expect(!missingKey.allowed)
        #expect(missingKey.reason.contains("no key 'open'"))
    }

    @Test func denialWithoutAnyApplicableStatement() throws {
        let rules = try StorageRules(source: Self.source)
        let noMatch = rules.evaluate(request(.get, "elsewhere/x", uid: "a"))
        #expect(!noMatch.allowed)
        #expect(noMatch.line == nil)
        #expect(noMatch.reason.contains("no match block covers the path"))
        let noAllow = rules.evaluate(request(.delete, "locked/f", uid: "a"))
        #expect(!noAllow.allowed)
        #expect(noAllow.line == nil)
        #expect(noAllow.reason.contains("none allows delete"))
    }

    @Test func reasonsQuoteRulesNotRequestData() throws {
        let rules = try StorageRules(source: Self.source)
        let secretPath = "users/alice/tax-return-2023.pdf"
        let auth = StorageRulesAuth(uid: "bob", token: .object([JSONMember("email", .string("bob@secret.example"))]))
        let incoming = StorageRulesResource(
            bucket: Self.bucket, name: secretPath, size: 1, metadata: .object([JSONMember("note", .string("private note"))]))
        let decision = rules.evaluate(StorageRulesRequest(
            method: .update, bucket: Self.bucket, objectName: secretPath, auth: auth, resource: incoming, time: Self.now))
        #expect(!decision.allowed)
        for secret in ["tax-return", "bob@secret", "private note", "bob"] {
            #expect(!decision.reason.contains(secret), "reason leaks \(secret): \(decision.reason)")
        }
    }

    @Test func defaultRulesAllowSignedInUsersOnly() throws {
        let rules = try StorageRules(source: StorageRules.defaultSource)
        #expect(rules.version == 2)
        let incoming = StorageRulesResource(bucket: Self.bucket, name: "a/b.txt", size: 1)
        #expect(rules.evaluate(request(.get, "a/b.txt", uid: "u")).allowed)
        #expect(rules.evaluate(request(.list, "", uid: "u")).allowed)
        #expect(rules.evaluate(request(.create, "a/b.txt", uid: "u", incoming: incoming)).allowed)
        #expect(!rules.evaluate(request(.get, "a/b.txt")).allowed)
        #expect(!rules.evaluate(request(.delete, "a/b.txt")).allowed)
    }

    @Test func versionDefaultsToOne() throws {
        let rules = try StorageRules(source: "service firebase.storage { match /b/{bucket}/o { } }")
        #expect(rules.version == 1)
        #expect(rules.allowStatements.isEmpty)
    }

    @Test func allowStatementsListEveryStatement() throws {
        let rules = try StorageRules(source: Self.source)
        let statements = rules.allowStatements
        #expect(statements.map(\.line) == [5, 6, 9])
        #expect(statements[2].matchPath == "/b/{bucket}/o/locked/{file}")
        #expect(statements[2].text == "allow get: if resource.metadata.open == 'yes';")
    }

    @Test func objectNamesSplitIntoSegments() {
        #expect(request(.get, "a/b/c.txt").path == ["a", "b", "c.txt"])
        #expect(request(.list, "a/b/").path == ["a", "b"])
        #expect(request(.list, "").path == [])
        #expect(request(.get, "a//b").path == ["a", "", "b"])
        #expect(request(.get, "ü %/x").path == ["ü %", "x"])
    }

    @Test func authFromIDTokenClaims() throws {
        let claims = try JSONValue.parse(#"{"user_id": "u1", "sub": "u1", "email": "a@b.c", "admin": true}"#)
        let auth = try #require(StorageRulesAuth(claims: claims))
        #expect(auth.uid == "u1")
        #expect(auth.token["admin"] == .bool(true))
        let subOnly = try #require(StorageRulesAuth(claims: try JSONValue.parse(#"{"sub": "u2"}"#)))
        #expect(subOnly.uid == "u2")
        #expect(StorageRulesAuth(claims: try JSONValue.parse(#"{"email": "a@b.c"}"#)) == nil)
        #expect(StorageRulesAuth(claims: try JSONValue.parse(#"{"user_id": ""}"#)) == nil)
        #expect(StorageRulesAuth(claims: .array([])) == nil)
    }

    @Test func methodsDescribeThemselves() {
        #expect(StorageRulesMethod.allCases.map(\.description) == ["get", "list", "create", "update", "delete"])
    }

    @Test func compileErrorsCarryLineAndColumn() {
        #expect(throws: RulesError("Unknown variable 'nope'", line: 3, column: 51)) {
            try StorageRules(source: """
                rules_version = '2';
                service firebase.storage {
                  match /b/{bucket}/o { match /a { allow read: if nope; } }
                }
                """)
        }
    }

    @Test func evaluationIsDeterministicAcrossCalls() throws {
        let rules = try StorageRules(source: Self.source)
        let r = request(.get, "users/alice/a.png", uid: "bob")
        let first = rules.evaluate(r)
        for _ in 0..<50 { #expect(rules.evaluate(r).allowed == first.allowed) }
    }
}
