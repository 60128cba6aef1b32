import Foundation
import HearthCore
import HearthPostgres
import HearthSQLite
import HearthStore
import HearthTesting
import Logging
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `hearth migrate`: a SQLite deployment made by `hearth serve`, copied into the PostgreSQL of
/// `HEARTH_TEST_POSTGRES` under a fresh project and fresh namespaces, then served from there.
@Suite(
    "hearth migrate", .serialized,
    // The copy needs a PostgreSQL server; without one there is nothing to migrate into.
    .enabled(if: MigrateTestPostgres.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the migration tests (.ci/run does)"))
struct MigrateProcessTests {
    static let url = MigrateTestPostgres.url

    /// A project (its default namespace) and a second namespace no earlier run used.
    static func freshNames() -> (project: String, second: String) {
        let tag = String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        return ("mig\(tag)", "mig\(tag)b")
    }

    /// What the SQLite deployment holds, as read over REST before the migration.
    struct Deployment {
        var data: String
        var project: String
        var second: String
        var users: String
        var rules: String
        var suffix: String
    }

    /// `hearth serve` on SQLite: nested data with priorities, rules with .indexOn, a second namespace, a user, a file
    /// and a short link; stopped before returning.
    static func makeDeployment() async throws -> Deployment {
        let (project, second) = freshNames()
        let data = temporaryDataFolder()
        try #"rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if true; } } }"#
            .write(toFile: data + "/storage.rules", atomically: true, encoding: .utf8)
        let server = try await HearthProcess.serve(data: data, extra: ["--project", project, "--link-domains", "http://127.0.0.1/l"])
        let users = #"{"a":{"name":"Ann","age":30,".priority":2},"b":{"name":"Bo","age":7,"tags":{"x":true},".priority":"p"}}"#
        #expect(try await server.request(.PUT, "/users.json", body: users).0 == 200)
        #expect(try await server.request(.PUT, "/posts/p1.json", body: #"{"title":"first","n":1.5}"#).0 == 200)
        let rules = #"{"rules":{".read":true,".write":true,"users":{".indexOn":["age"]}}}"#
        #expect(try await server.request(.PUT, "/.settings/rules.json", body: rules).0 == 200)
        #expect(try await server.request(.PUT, "/other.json?ns=\(second)", body: #"{"k":1}"#).0 == 200)
        let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
        #expect(try await server.request(.POST, signUp, body: #"{"email":"mover@example.com","password":"secret-move"}"#, token: nil).0 == 200)
        let upload = try await server.request(.POST, "/v0/b/\(project).appspot.com/o?name=docs%2Fa.txt", body: "hello from sqlite")
        #expect(upload.0 == 200, "\(upload.1)")
        let link = try await server.request(
            .POST, "/v1/shortLinks", body: #"{"dynamicLinkInfo":{"domainUriPrefix":"http://127.0.0.1/l","link":"https://app.example.com/p/1"}}"#)
        #expect(link.0 == 200, "\(link.1)")
        let shortLink = try #require((try JSONSerialization.jsonObject(with: Data(link.1.utf8)) as? [String: Any])?["shortLink"] as? String)
        let exported = try await server.request(.GET, "/users.json?format=export")
        let storedRules = try await server.request(.GET, "/.settings/rules.json")
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
        return Deployment(
            data: data, project: project, second: second, users: exported.1, rules: storedRules.1,
            suffix: String(shortLink.split(separator: "/").last ?? ""))
    }

    /// Runs `hearth migrate` with `arguments` and returns its exit code, standard output and standard error.
    static func migrate(_ arguments: [String]) async throws -> (Int32, String, String) {
        let process = try HearthProcess(["migrate"] + arguments)
        let code = try await process.exitCode(within: 120)
        return (code, process.stdoutText, process.stderrText)
    }

    @Test("a SQLite deployment is copied, verified, and served from PostgreSQL with the same data")
    func migratesAndServes() async throws {
        let url = try #require(Self.url)
        let deployment = try await Self.makeDeployment()
        let (code, table, errors) = try await Self.migrate(["--from", deployment.data, "--to", url, "--project", deployment.project])
        #expect(code == 0, "\(table)\n\(errors)")
        for check in ["\(deployment.project): leaves", "\(deployment.project): export sha256", "\(deployment.second): leaves", "accounts", "objects", "links"] {
            #expect(table.split(separator: "\n").contains { $0.hasPrefix(check) && $0.hasSuffix("ok") }, "\(check) in\n\(table)")
        }
        #expect(!table.contains("MISMATCH"))
        #expect(table.contains("users sign in again"))
        #expect(errors.contains("namespaces"), "a progress line: \(errors)")

        let server = try await HearthProcess.serve(
            data: deployment.data, extra: ["--project", deployment.project, "--postgres", url, "--link-domains", "http://127.0.0.1/l"])
        #expect(try await server.request(.GET, "/users.json?format=export").1 == deployment.users)
        #expect(try await server.request(.GET, "/.settings/rules.json").1 == deployment.rules)
        #expect(try await server.request(.GET, "/other/k.json?ns=\(deployment.second)").1 == "1")
        let signIn = try await server.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
            body: #"{"email":"mover@example.com","password":"secret-move"}"#, token: nil)
        #expect(signIn.0 == 200, "\(signIn.1)")
        let file = try await server.request(.GET, "/v0/b/\(deployment.project).appspot.com/o/docs%2Fa.txt?alt=media")
        #expect(file.0 == 200)
        #expect(file.1 == "hello from sqlite")
        let stats = try await server.request(.GET, "/v1/http%3A%2F%2F127.0.0.1%2Fl%2F\(deployment.suffix)/linkStats?durationDays=7")
        #expect(stats.0 == 200, "\(stats.1)")
        let resolved = try await server.request(.GET, "/l/\(deployment.suffix)?d=1", token: nil)
        #expect(resolved.0 == 200 && resolved.1.contains("app.example.com"), "\(resolved)")
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    @Test("every setting is copied; a second copy into the same project is refused; a row changed in PostgreSQL fails the verification")
    func refusesAndDetectsMismatch() async throws {
        let url = try #require(Self.url)
        let deployment = try await Self.makeDeployment()
        // A setting no REST call writes (a scheduled function's last tick), stored beside the rules.
        let sqlite = try SQLiteStore(path: "\(deployment.data)/\(deployment.project).sqlite")
        try await sqlite.write { try $0.setSetting("schedule:nightly", "1700000000000") }
        try await sqlite.close()
        let arguments = ["--from", deployment.data, "--to", url, "--project", deployment.project]
        #expect(try await Self.migrate(arguments).0 == 0)
        let again = try await Self.migrate(arguments)
        #expect(again.0 != 0)
        #expect(again.2.contains("--force"), "\(again.2)")
        #expect(try await Self.migrate(arguments + ["--verify-only"]).0 == 0)

        let server = try await PostgresServer(location: try PostgresLocation(url: url), connections: 1, logger: Logger(label: "test"))
        let store = try await PostgresStoreFactory(server: server).open(namespace: deployment.project)
        #expect(try await store.snapshot { try $0.setting("schedule:nightly") } == "1700000000000")
        try await store.write { try $0.set(Path("users/b/name"), .leaf(.string("Changed"))) }
        try await store.close()
        try await server.shutdown()

        let (code, table, _) = try await Self.migrate(arguments + ["--verify-only"])
        #expect(code != 0)
        let line = table.split(separator: "\n").first { $0.hasPrefix("\(deployment.project): export sha256") }
        #expect(line?.hasSuffix("MISMATCH") == true, "\(table)")
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("\(deployment.project): leaves") && $0.hasSuffix("ok") })
    }
}

/// The PostgreSQL server of the migration tests (nil: the suite is skipped).
private enum MigrateTestPostgres {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
}
