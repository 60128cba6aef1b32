import Testing
@testable import HearthCore

/// Trigger locations: `/reservations/{id}` patterns, what they match and which locations a write touches.
@Suite("Path patterns")
struct PathPatternTests {
    private func patternNode(_ text: String) -> Node {
        try! Node(json: JSONValue.parse(text))
    }

    private func paths(_ list: [Path]) -> [String] { list.map(\.description) }

    // MARK: Parsing

    @Test func parsesLiteralsAndWildcards() throws {
        let pattern = try PathPattern("/chats/{chat}/messages/{msg}")
        #expect(pattern.segments == [.literal(Key("chats")), .wildcard("chat"), .literal(Key("messages")), .wildcard("msg")])
        #expect(pattern.depth == 4)
    }

    @Test(arguments: [
        ("/reservations/{id}", "/reservations/{id}"),
        ("reservations/{id}", "/reservations/{id}"),
        ("/reservations/{id}/", "/reservations/{id}"),
        ("//reservations//{id}", "/reservations/{id}"),
        ("/a/{b}/c", "/a/{b}/c"),
        ("/{Under_score9}", "/{Under_score9}"),
        ("/{0}", "/{0}"),
        ("/users/José Ñ 🐵/{uid}", "/users/José Ñ 🐵/{uid}"),
        ("/", "/"),
        ("", "/"),
        ("///", "/"),
    ])
    func descriptionIsTheNormalisedPattern(text: String, description: String) throws {
        let pattern = try PathPattern(text)
        #expect(pattern.description == description)
        // The description parses back to the same pattern.
        #expect(try PathPattern(pattern.description) == pattern)
    }

    @Test func rootPatternHasNoSegments() throws {
        let root = try PathPattern("/")
        #expect(root.segments.isEmpty)
        #expect(root.depth == 0)
        #expect(root.match(.root) == [:])
        #expect(root.match(Path("a")) == nil)
    }

    @Test(arguments: [
        "/a/{}",  // empty name
        "/a/{id",  // unclosed
        "/a/{i-d}",  // '-' is not allowed in a name
        "/a/{i d}",
        "/a/{i.d}",
        "/a/{é}",  // letters are ASCII letters
        "/a/{$id}",
        "/a/{{id}}",
        "/a/{id}x",
        "/a/x{id}",  // '{' inside a literal segment
        "/a/x{id}y",
        "/a/id}",
        "/a/}",
        "/a/{",
        "/a/b{",
        "/a.b",  // literal segments must be valid keys
        "/$x",
        "/a/#",
        "/a/[0]",
        "/a/.priority",
        "/a/\u{7F}",
        "/a/{id}/b/{id}",  // duplicate wildcard name
        "/{x}/{x}",
    ])
    func rejectsInvalidPatterns(text: String) {
        #expect(throws: ValidationError.self) { try PathPattern(text) }
    }

    @Test func errorMessagesNameTheProblem() {
        #expect {
            try PathPattern("/a/{id}/b/{id}")
        } throws: { error in
            (error as? ValidationError)?.message.contains("{id}") == true
        }
        #expect {
            try PathPattern("/a/b.c")
        } throws: { error in
            (error as? ValidationError)?.message.contains("b.c") == true
        }
    }

    @Test func wildcardNamesAreCaseSensitive() throws {
        let pattern = try PathPattern("/{a}/{A}")
        #expect(pattern.match(Path("x/y")) == ["a": "x", "A": "y"])
    }

    @Test func literalKeyLengthLimitApplies() {
        #expect(throws: ValidationError.self) { try PathPattern("/" + String(repeating: "a", count: 769)) }
        #expect(throws: Never.self) { try PathPattern("/" + String(repeating: "a", count: 768)) }
    }

    // MARK: Matching

    @Test func matchCapturesWildcards() throws {
        let pattern = try PathPattern("/chats/{chat}/messages/{msg}")
        #expect(pattern.match(Path("/chats/c1/messages/m9")) == ["chat": "c1", "msg": "m9"])
        #expect(pattern.match(Path("chats/José Ñ/messages/-Ost90fdbeEJ4iC_e3rZ")) == ["chat": "José Ñ", "msg": "-Ost90fdbeEJ4iC_e3rZ"])
    }

    @Test func matchWithOnlyLiteralsCapturesNothing() throws {
        let pattern = try PathPattern("/config/site")
        #expect(pattern.match(Path("config/site")) == [:])
        #expect(pattern.match(Path("config/other")) == nil)
    }

    @Test(arguments: ["/reservations", "/", "/reservations/r1/status", "/reservations/r1/a/b"])
    func matchRequiresTheExactDepth(path: String) throws {
        #expect(try PathPattern("/reservations/{id}").match(Path(path)) == nil)
    }

    @Test(arguments: ["/reservation/r1", "/Reservations/r1", "/other/r1", "/r1/reservations"])
    func matchRequiresLiteralsToBeEqual(path: String) throws {
        #expect(try PathPattern("/reservations/{id}").match(Path(path)) == nil)
    }

    @Test func literalComparisonIsByCodeUnits() throws {
        // "é" precomposed vs "e" + combining accent: Firebase keeps them apart, so must patterns.
        let pattern = try PathPattern("/caf\u{E9}/{id}")
        #expect(pattern.match(Path("caf\u{E9}/x")) == ["id": "x"])
        #expect(pattern.match(Path("cafe\u{301}/x")) == nil)
    }

    @Test func matchesPrefix() throws {
        let pattern = try PathPattern("/chats/{chat}/messages/{msg}")
        let path = Path("chats/c1/messages/m1")
        for count in 0...4 { #expect(pattern.matchesPrefix(of: path, count: count)) }
        #expect(!pattern.matchesPrefix(of: path, count: 5))  // longer than the pattern
        #expect(!pattern.matchesPrefix(of: Path("chats/c1"), count: 3))  // longer than the path
        #expect(pattern.matchesPrefix(of: Path("chats/c1/title"), count: 2))
        #expect(!pattern.matchesPrefix(of: Path("chats/c1/title"), count: 3))
        #expect(!pattern.matchesPrefix(of: Path("users/c1"), count: 1))
        #expect(pattern.matchesPrefix(of: Path("users/c1"), count: 0))
    }

    // MARK: Locations a write touches

    @Test func writeBelowThePatternTouchesItsAncestorAtThePatternDepth() throws {
        let pattern = try PathPattern("/reservations/{id}")
        let touched = pattern.locations(touchedBy: Path("reservations/r1/status"), in: patternNode(#""paid""#))
        #expect(paths(touched) == ["/reservations/r1"])
        let deep = pattern.locations(touchedBy: Path("reservations/r1/guests/0/name"), in: .empty)
        #expect(paths(deep) == ["/reservations/r1"])
    }

    @Test func writeAtThePatternTouchesItselfEvenWhenEmpty() throws {
        let pattern = try PathPattern("/reservations/{id}")
        #expect(paths(pattern.locations(touchedBy: Path("reservations/r1"), in: patternNode(#"{"a":1}"#))) == ["/reservations/r1"])
        // A deletion: the new value is empty, the location is still touched.
        #expect(paths(pattern.locations(touchedBy: Path("reservations/r1"), in: .empty)) == ["/reservations/r1"])
    }

    @Test(arguments: ["/other/r1", "/other/r1/status", "/reservation/r1"])
    func writeAtOrBelowANonMatchingPathTouchesNothing(path: String) throws {
        let pattern = try PathPattern("/reservations/{id}")
        #expect(pattern.locations(touchedBy: Path(path), in: patternNode(#"{"a":1}"#)).isEmpty)
    }

    @Test func writeAboveThePatternTouchesEveryMatchingLocationInside() throws {
        let pattern = try PathPattern("/reservations/{id}")
        let node = patternNode(#"{"r2":{"n":2},"r1":"x","10":true}"#)
        // In key order (integer-like keys first).
        #expect(paths(pattern.locations(touchedBy: Path("reservations"), in: node)) == [
            "/reservations/10", "/reservations/r1", "/reservations/r2",
        ])
        #expect(pattern.locations(touchedBy: Path("reservations"), in: .empty).isEmpty)
        #expect(pattern.locations(touchedBy: Path("reservations"), in: patternNode("5")).isEmpty)  // a leaf has no children
    }

    @Test func writeAtTheRootFollowsLiteralSegments() throws {
        let pattern = try PathPattern("/reservations/{id}")
        let node = patternNode(#"{"reservations":{"r1":{"a":1}},"other":{"r9":{"a":1}}}"#)
        #expect(paths(pattern.locations(touchedBy: .root, in: node)) == ["/reservations/r1"])
        #expect(pattern.locations(touchedBy: .root, in: patternNode(#"{"other":{"r9":1}}"#)).isEmpty)
    }

    @Test func writeAboveOnANonMatchingBranchTouchesNothing() throws {
        let pattern = try PathPattern("/chats/{chat}/messages/{msg}")
        let node = patternNode(#"{"messages":{"m1":"hi"}}"#)
        #expect(pattern.locations(touchedBy: Path("users/c1"), in: node).isEmpty)
        #expect(pattern.locations(touchedBy: Path("chats/c1/title"), in: node).isEmpty)
    }

    @Test func nestedWildcardsWithALiteralInTheMiddle() throws {
        let pattern = try PathPattern("/chats/{chat}/messages/{msg}")
        let root = patternNode(#"""
            {"chats":{
                "c1":{"title":"a","messages":{"m1":{"t":"hi"},"m2":"yo"}},
                "c2":{"title":"b"},
                "c3":{"messages":{"m1":1},"members":{"m5":true}}
            },"users":{"u1":{"messages":{"m1":1}}}}
            """#)
        #expect(paths(pattern.locations(touchedBy: .root, in: root)) == [
            "/chats/c1/messages/m1", "/chats/c1/messages/m2", "/chats/c3/messages/m1",
        ])
        let chats = root.child(Key("chats"))
        #expect(paths(pattern.locations(touchedBy: Path("chats"), in: chats)) == [
            "/chats/c1/messages/m1", "/chats/c1/messages/m2", "/chats/c3/messages/m1",
        ])
        let c1 = chats.child(Key("c1"))
        #expect(paths(pattern.locations(touchedBy: Path("chats/c1"), in: c1)) == ["/chats/c1/messages/m1", "/chats/c1/messages/m2"])
        let messages = c1.child(Key("messages"))
        #expect(paths(pattern.locations(touchedBy: Path("chats/c1/messages"), in: messages)) == [
            "/chats/c1/messages/m1", "/chats/c1/messages/m2",
        ])
        #expect(paths(pattern.locations(touchedBy: Path("chats/c1/messages/m2"), in: patternNode("1"))) == ["/chats/c1/messages/m2"])
        #expect(paths(pattern.locations(touchedBy: Path("chats/c1/messages/m2/t"), in: .empty)) == ["/chats/c1/messages/m2"])
        #expect(pattern.locations(touchedBy: Path("chats/c1/members/m2"), in: patternNode("1")).isEmpty)
    }

    @Test func literalAtTheEndOfThePattern() throws {
        let pattern = try PathPattern("/users/{uid}/profile")
        let users = patternNode(#"{"alice":{"profile":{"n":"A"},"x":1},"bob":{"x":2},"carol":"leaf"}"#)
        #expect(paths(pattern.locations(touchedBy: Path("users"), in: users)) == ["/users/alice/profile"])
        #expect(paths(pattern.locations(touchedBy: Path("users/bob/profile/n"), in: .empty)) == ["/users/bob/profile"])
        #expect(pattern.locations(touchedBy: Path("users/bob/x"), in: .empty).isEmpty)
    }

    @Test func rootPatternIsTouchedByEveryWrite() throws {
        let root = try PathPattern("/")
        #expect(paths(root.locations(touchedBy: Path("a/b"), in: .empty)) == ["/"])
        #expect(paths(root.locations(touchedBy: .root, in: patternNode("1"))) == ["/"])
    }
}
