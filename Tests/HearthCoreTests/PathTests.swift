import Testing
@testable import HearthCore

/// §1.2 keys and paths, §2.1 URL path decoding.
@Suite("Paths and key validation")
struct PathTests {
    @Test(arguments: ["a", "A-z_0", "-Ost90fdbeEJ4iC_e3rZ", "José Ñ 🐵", "a+b@c", "%", "x:y;z=w!'()*~", " ", "\u{80}", "é"])
    func validKeys(key: String) throws {
        #expect(try Key.validated(key).string == key)
    }

    @Test(arguments: ["", "a.b", ".priority", "$key", "a#", "[", "]", "a/b", "\u{0}", "tab\t", "new\nline", "\u{1F}", "\u{7F}", ".", "a$"])
    func invalidKeys(key: String) {
        #expect(throws: ValidationError.self) { try Key.validated(key) }
    }

    @Test func keyLengthLimitIs768UTF8Bytes() throws {
        #expect(try Key.validated(String(repeating: "a", count: 768)).string.utf8.count == 768)
        #expect(throws: ValidationError.self) { try Key.validated(String(repeating: "a", count: 769)) }
        // Bytes, not characters: 256 × "€" is 768 bytes; one more ASCII byte is over.
        #expect(try Key.validated(String(repeating: "€", count: 256)).string.count == 256)
        #expect(throws: ValidationError.self) { try Key.validated(String(repeating: "€", count: 256) + "a") }
        #expect(throws: ValidationError.self) { try Key.validated(String(repeating: "😀", count: 193)) }  // 772 bytes
        #expect(try Key.validated(String(repeating: "😀", count: 192)).string.utf8.count == 768)
    }

    @Test(arguments: [
        ("", [String]()), ("/", []), ("//", []), ("a", ["a"]), ("/a/b", ["a", "b"]), ("/a//b/", ["a", "b"]),
        ("a/b/c", ["a", "b", "c"]), ("users/José Ñ 🐵", ["users", "José Ñ 🐵"]),
    ])
    func validatedPaths(text: String, keys: [String]) throws {
        #expect(try Path.validated(text).keys.map(\.string) == keys)
        #expect(Path(text).keys.map(\.string) == keys)
    }

    @Test(arguments: ["a/b.c", "a/$x", "#", "a/[0]", "a/\u{7F}"])
    func invalidPaths(text: String) {
        #expect(throws: ValidationError.self) { try Path.validated(text) }
    }

    @Test func depthLimitIs32() throws {
        let ok = (1...32).map { "k\($0)" }.joined(separator: "/")
        #expect(try Path.validated(ok).count == 32)
        #expect(throws: ValidationError.self) { try Path.validated(ok + "/k33") }
        #expect(try Path.validated(rawURLPath: Substring(ok)).count == 32)
        #expect(throws: ValidationError.self) { try Path.validated(rawURLPath: Substring(ok + "/k33")) }
        // Empty segments do not count.
        #expect(try Path.validated("//" + ok + "//").count == 32)
    }

    @Test(arguments: [
        ("/a/b", ["a", "b"]),
        ("/users/Jos%C3%A9%20%C3%91%20%F0%9F%90%B5", ["users", "José Ñ 🐵"]),
        ("/a+b@c", ["a+b@c"]),  // '+' is literal, never a space
        ("/a%2Bb", ["a+b"]),
        ("/a+b%20c+d", ["a+b c+d"]),  // '+' stays literal on the decoding path too
        ("/x%20y", ["x y"]),
        ("/%E2%82%AC", ["€"]),
        ("/%e2%82%ac", ["€"]),
        ("//a///b//", ["a", "b"]),
        ("/%25", ["%"]),
    ])
    func rawURLPaths(raw: String, keys: [String]) throws {
        #expect(try Path.validated(rawURLPath: Substring(raw)).keys.map(\.string) == keys)
    }

    /// The path is split on raw `/` before decoding, so `%2F` is part of one segment — where it is a forbidden
    /// character — and never a separator.
    @Test(arguments: ["/a%2Fb", "/a%2fb", "/%2F", "/a/%2e", "/%2E%2E", "/a%24", "/a%23", "/%5B0%5D", "/a%00", "/a%7F", "/a%0A"])
    func percentEncodedForbiddenCharactersStayInTheirSegment(raw: String) {
        #expect(throws: ValidationError.self) { try Path.validated(rawURLPath: Substring(raw)) }
    }

    @Test(arguments: ["/a%", "/a%2", "/a%G0", "/a%0G", "/%C3", "/%FF", "/%C0%80", "/%ED%A0%80", "/%%"])
    func malformedPercentEncoding(raw: String) {
        #expect(throws: ValidationError.self) { try Path.validated(rawURLPath: Substring(raw)) }
    }

    @Test func percentDecodeFunction() {
        #expect(percentDecode("a+b") == "a+b")
        #expect(percentDecode("a+%41+") == "a+A+")
        #expect(percentDecode("a%2Fb") == "a/b")
        #expect(percentDecode("%41%42") == "AB")
        #expect(percentDecode("plain") == "plain")
        #expect(percentDecode("%") == nil)
        #expect(percentDecode("%4") == nil)
        #expect(percentDecode("%zz") == nil)
        #expect(percentDecode("%FF") == nil)
    }

    @Test func pathOperations() {
        let p = Path("/a/b/c")
        #expect(p.description == "/a/b/c")
        #expect(Path.root.description == "/")
        #expect(Path.root.isRoot && !p.isRoot)
        #expect(p.count == 3)
        #expect(p.last == Key("c"))
        #expect(p.parent == Path("a/b"))
        #expect(Path("a").parent == .root)
        #expect(Path.root.parent == nil)
        #expect(Path("a").child(Key("b")) == Path("a/b"))
        #expect(Path("a").appending(Path("b/c")) == p)
        #expect(Path.root.appending(.root) == .root)
    }

    @Test(arguments: [
        ("/", "/", true), ("/", "/a/b", true), ("/a", "/a", true), ("/a", "/a/b", true), ("/a/b", "/a", false),
        ("/a", "/ab", false), ("/ab", "/a", false), ("/a/b", "/a/c", false), ("/a", "/b/a", false),
    ])
    func ancestry(a: String, b: String, ancestor: Bool) {
        #expect(Path(a).isAncestor(ofOrEqualTo: Path(b)) == ancestor)
        #expect((Path(a).relative(Path(b)) != nil) == ancestor)
    }

    @Test func relativePaths() {
        #expect(Path("/a").relative(Path("/a/b/c")) == Path("b/c"))
        #expect(Path("/a/b").relative(Path("/a/b")) == .root)
        #expect(Path.root.relative(Path("/x")) == Path("x"))
        #expect(Path("/a/b").relative(Path("/a")) == nil)
    }
}
