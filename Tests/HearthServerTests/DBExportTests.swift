import Foundation
import HearthTesting
import NIOHTTP1
import Testing

/// `hearth db export|import` against real servers: byte-identical round trips, batches under the body limit,
/// and malformed files that write nothing.
@Suite("hearth db export/import", .serialized)
struct DBExportTests {
    /// Runs `hearth db …` to the end and returns its exit code and standard error.
    private func db(_ arguments: [String]) async throws -> (Int32, String) {
        let p = try HearthProcess(["db"] + arguments)
        let code = try await p.exitCode(within: 60)
        return (code, p.stderrText)
    }

    private func file(_ name: String) -> String { temporaryDataFolder() + "/" + name }

    private let sample = #"""
        {"users":{"u1":{"name":"Ann \"q\" é ✓","age":3,"tags":["a","b"],"score":-1.5e3},"u2":{"name":"Bo","ok":true}},
         "motd":"hi","n":{"1":1,"2":2,"10":10,"a":{"b":{"c":{"e":"deep"}}}},"sparse":{"0":"x","5":"y"},
         "many":{"k01":1,"k02":{"v":2},"k03":3,"k04":4,"k05":{"v":5},"k06":6,"k07":7,"k08":8,"k09":9,"k10":10,"k11":{"v":11}}}
        """#

    @Test("export → import into a fresh server → export is byte-identical, and matches the server's own JSON")
    func roundTrip() async throws {
        let a = try await HearthProcess.serve(data: temporaryDataFolder())
        let b = try await HearthProcess.serve(data: temporaryDataFolder())
        #expect(try await a.request(.PUT, "/.json?print=silent", body: sample).0 == 204)
        let first = file("first.json"), second = file("second.json")
        // A page size smaller than "many" so its keys come over several pages.
        var (code, err) = try await db(["export", "--url", "http://127.0.0.1:\(a.port)", "--page-size", "3", "-o", first])
        #expect(code == 0, "\(err)")
        let exported = try String(contentsOfFile: first, encoding: .utf8)
        #expect(exported == (try await a.request(.GET, "/.json").1) + "\n")
        (code, err) = try await db(["import", "--url", "http://127.0.0.1:\(b.port)", first, "--batch-bytes", "1024"])
        #expect(code == 0, "\(err)")
        (code, err) = try await db(["export", "--url", "http://127.0.0.1:\(b.port)", "-o", second])
        #expect(code == 0, "\(err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == Data(contentsOf: URL(fileURLWithPath: first)))
        // A location alone, into another location.
        let users = file("users.json")
        (code, _) = try await db(["export", "--url", "http://127.0.0.1:\(a.port)", "/users", "-o", users])
        #expect(code == 0)
        (code, _) = try await db(["import", "--url", "http://127.0.0.1:\(b.port)", users, "/copy"])
        #expect(code == 0)
        #expect(try await b.request(.GET, "/copy/u1/tags/1.json").1 == "\"b\"")
        a.signal(SIGTERM)
        b.signal(SIGTERM)
    }

    @Test("a file larger than the server's body limit is imported in several writes, each under it")
    func largerThanBodyLimit() async throws {
        let server = try await HearthProcess.serve(data: temporaryDataFolder(), extra: ["--max-body-bytes", "16384"])
        var text = "{\"big\":{"
        for i in 0..<2000 { text += (i > 0 ? "," : "") + "\"k\(1000 + i)\":{\"i\":\(i),\"s\":\"\(String(repeating: "x", count: i % 50))\"}" }
        text += "},\"deep\":{\"x\":{" + (0..<500).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}}}"
        let path = file("big.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text.utf8.count > 80_000)
        let (code, err) = try await db(["import", "--url", "http://127.0.0.1:\(server.port)", path, "--batch-bytes", "8192"])
        #expect(code == 0, "\(err)")
        let writes = err.firstMatch(of: /in (\d+) writes/).flatMap { Int($0.1) } ?? 0
        #expect(writes >= 10, "\(err)")
        let (status, body) = try await server.request(.GET, "/.json")
        #expect(status == 200)
        let expected = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? NSDictionary == expected)
        // One batch over the limit is refused by the server, with its message.
        let (over, overErr) = try await db(["import", "--url", "http://127.0.0.1:\(server.port)", path, "--batch-bytes", "65536"])
        #expect(over == 1)
        #expect(overErr.contains("413") || overErr.contains("too large"), "\(overErr)")
        server.signal(SIGTERM)
    }

    @Test("a malformed file names the byte offset and writes nothing", arguments: [
        (#"{"a":1,"b":{"c":tru}}"#, 16, "expected a value"),
        (#"{"a":1,"b.c":2}"#, 7, "cannot"),
        (#"{"a":1,}"#, 7, "expected a key"),
        (#"{"a":"x\q"}"#, 7, "invalid escape"),
        (#"{"a":{"b":[1,2"#, 14, "ends"),
    ])
    func malformed(text: String, offset: Int, words: String) async throws {
        let server = try await HearthProcess.serve(data: temporaryDataFolder())
        #expect(try await server.request(.PUT, "/.json?print=silent", body: #"{"keep":"me"}"#).0 == 204)
        let path = file("bad.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (code, err) = try await db(["import", "--url", "http://127.0.0.1:\(server.port)", path])
        #expect(code == 1)
        #expect(err.contains("byte \(offset):"), "\(err)")
        #expect(err.contains(words), "\(err)")
        #expect(err.contains("nothing was imported"))
        #expect(try await server.request(.GET, "/.json").1 == #"{"keep":"me"}"#)
        server.signal(SIGTERM)
    }
}
