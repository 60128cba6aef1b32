import AsyncHTTPClient
import Foundation
import HearthAuth
import NIOCore
import NIOHTTP1
import HearthTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real binary: restart, `kill -9`, signals and start-up errors with their exit codes.
@Suite("hearth process", .serialized)
struct ProcessTests {
    @Test("a server whose test dropped it without stopping it is killed, not left running")
    func droppedServerIsKilled() async throws {
        var server: HearthProcess? = try await HearthProcess.serve(data: temporaryDataFolder())
        let pid = try #require(server?.process.processIdentifier)
        #expect(kill(pid, 0) == 0)
        server = nil
        var status: Int32 = 0
        // The child is ours: reap it (bounded), then it no longer exists.
        for _ in 0..<500 where waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(kill(pid, 0) == -1)
    }

    @Test("waiting for the port gives up at its deadline when the child stays up without writing anything")
    func waitForPortHasADeadline() async throws {
        let silent = try HearthProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        let start = ContinuousClock.now
        await #expect(throws: HearthProcessError.self) { try await silent.waitForPort(within: 0.5) }
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(silent.process.isRunning)
        silent.signal(SIGKILL)
        _ = try await silent.exitCode()
    }

    @Test func acknowledgedWritesSurviveKill9() async throws {
        let data = temporaryDataFolder()
        let server = try await HearthProcess.serve(data: data)
        try await withThrowingTaskGroup(of: UInt.self) { group in
            for i in 0..<200 {
                group.addTask { try await server.request(.PUT, "/acked/k\(i).json?print=silent", body: "{\"i\":\(i)}").0 }
            }
            for try await status in group { #expect(status == 204) }
        }
        server.signal(SIGKILL)
        _ = try await server.exitCode()
        let again = try await HearthProcess.serve(data: data)
        let (status, body) = try await again.request(.GET, "/acked.json?shallow=true")
        #expect(status == 200)
        let keys = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Bool]
        #expect(keys?.count == 200)
        #expect(try await again.request(.GET, "/acked/k199/i.json").1 == "199")
        again.signal(SIGTERM)
        #expect(try await again.exitCode() == 0)
    }

    @Test func sigtermClosesStreamsAndExitsZero() async throws {
        let server = try await HearthProcess.serve(data: temporaryDataFolder())
        _ = try await server.request(.PUT, "/s.json", body: "1")
        var req = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/s.json")
        req.headers.add(name: "Authorization", value: "Bearer owner")
        req.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await HTTPClient.shared.execute(req, timeout: .seconds(30))
        #expect(response.headers.first(name: "Content-Type") == "text/event-stream; charset=utf-8")
        var received = ""
        var iterator = response.body.makeAsyncIterator()
        if let first = try await iterator.next() { received += String(buffer: first) }
        #expect(received.hasPrefix("event: put\ndata: {\"path\":\"/\",\"data\":1}\n\n"))
        server.signal(SIGTERM)
        // The stream ends (the server closes it) and the process exits cleanly.
        while let more = try await iterator.next() { received += String(buffer: more) }
        #expect(try await server.exitCode() == 0)
    }

    @Test("a stream opened with an ID token ends with auth_revoked once the token has expired")
    func streamEndsWhenItsTokenExpires() async throws {
        let server = try await HearthProcess.serve(data: temporaryDataFolder())
        _ = try await server.request(.PUT, "/s.json", body: "1")
        // An unsigned emulator-style token (accepted in --dev) that expires in 4 seconds.
        func b64(_ s: String) -> String { Base64URL.encode(Array(s.utf8)) }
        let exp = Int(Date().timeIntervalSince1970) + 4
        let token = b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(#"{"sub":"u1","user_id":"u1","exp":\#(exp)}"#) + "."
        var req = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/s.json?auth=\(token)")
        req.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await HTTPClient.shared.execute(req, timeout: .seconds(30))
        #expect(response.status == .ok)
        var iterator = response.body.makeAsyncIterator()
        var received = ""
        if let first = try await iterator.next() { received += String(buffer: first) }
        #expect(received.hasPrefix("event: put\ndata: {\"path\":\"/\",\"data\":1}\n\n"))
        // Before expiry a change is delivered; after it, the next delivery ends the stream instead.
        _ = try await server.request(.PUT, "/s.json", body: "2")
        if let next = try await iterator.next() { received += String(buffer: next) }
        #expect(received.contains("data: {\"path\":\"/\",\"data\":2}"))
        try await Task.sleep(for: .milliseconds(Int64(exp) * 1000 - Int64(Date().timeIntervalSince1970 * 1000) + 300))
        _ = try await server.request(.PUT, "/s.json", body: "3")
        while let more = try await iterator.next() { received += String(buffer: more) }
        #expect(received.hasSuffix("event: auth_revoked\ndata: credential is no longer valid\n\n"))
        #expect(!received.contains("\"data\":3"))
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    @Test func generatedAdminTokenIsPrintedOnceAndKept() async throws {
        let data = temporaryDataFolder()
        let first = try HearthProcess(["serve", "--port", "0", "--data", data])
        try await first.waitForPort()
        let token = try String(contentsOfFile: data + "/admin-token", encoding: .utf8)
        #expect(token.count == 64)
        #expect(first.stdoutText.contains("Generated admin token (stored in \(data)/admin-token): \(token)"))
        #expect(try await first.request(.GET, "/x.json", token: token).0 == 200)
        #expect(try await first.request(.GET, "/x.json", token: "owner").0 == 401)
        #expect(try await first.request(.GET, "/x.json", token: nil).0 == 401)
        first.signal(SIGTERM)
        #expect(try await first.exitCode() == 0)
        let second = try HearthProcess(["serve", "--port", "0", "--data", data])
        try await second.waitForPort()
        #expect(try await second.request(.GET, "/x.json", token: token).0 == 200)
        second.signal(SIGTERM)
        #expect(try await second.exitCode() == 0)
        #expect(!second.stdoutText.contains("Generated"))
    }

    @Test func versionAndUsage() async throws {
        let version = try HearthProcess(["--version"])
        #expect(try await version.exitCode() == 0)
        let bad = try HearthProcess(["serve", "--port", "not-a-number"])
        #expect(try await bad.exitCode() == 64)
    }

    @Test func portInUseExitsFive() async throws {
        let first = try await HearthProcess.serve(data: temporaryDataFolder())
        let second = try HearthProcess(["serve", "--port", "\(first.port)", "--data", temporaryDataFolder(), "--dev"])
        #expect(try await second.exitCode() == 5)
        #expect(second.stderrText.contains("already in use"))
        first.signal(SIGTERM)
        #expect(try await first.exitCode() == 0)
    }

    @Test func unwritableDataFolderExitsThree() async throws {
        let file = temporaryDataFolder() + "/plain-file"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let p = try HearthProcess(["serve", "--port", "0", "--data", file + "/data"])
        #expect(try await p.exitCode() == 3)
    }

    @Test func corruptDatabaseExitsFour() async throws {
        let data = temporaryDataFolder()
        _ = FileManager.default.createFile(atPath: data + "/demo.sqlite", contents: Data(repeating: 0x41, count: 8192))
        let p = try HearthProcess(["serve", "--port", "0", "--data", data, "--dev"])
        #expect(try await p.exitCode() == 4)
        #expect(p.stderrText.contains("corrupt"))
    }

    @Test func rulesCheckAndTest() async throws {
        let folder = temporaryDataFolder()
        let rules = folder + "/rules.json"
        let cases = folder + "/cases.json"
        let bad = folder + "/bad.json"
        try """
            {
              // owner-only profiles
              "rules": {"users": {"$uid": {".read": "auth != null", ".write": "auth.uid === $uid",
                ".validate": "newData.hasChildren(['name'])"}}}
            }
            """.write(toFile: rules, atomically: true, encoding: .utf8)
        try "{\"rules\": {\n  \".read\": \"auth.uid ==\"\n}}".write(toFile: bad, atomically: true, encoding: .utf8)
        let good = try HearthProcess(["rules", "check", rules])
        #expect(try await good.exitCode() == 0)
        #expect(good.stdoutText.contains("ok"))
        let broken = try HearthProcess(["rules", "check", bad])
        #expect(try await broken.exitCode() == 7)
        #expect(broken.stderrText.contains("bad.json:2:"))

        let passing = """
            {"data": {"users": {"bob": {"name": "Bob"}}}, "cases": [
              {"name": "own profile", "auth": {"uid": "ann"}, "op": "set", "path": "/users/ann", "value": {"name": "Ann"}, "expect": "allow"},
              {"name": "other's profile", "auth": {"uid": "ann"}, "op": "set", "path": "/users/bob", "value": {"name": "X"}, "expect": "deny"},
              {"name": "missing name", "auth": {"uid": "ann"}, "op": "set", "path": "/users/ann", "value": {"age": 3}, "expect": "deny"},
              {"name": "signed-out read", "op": "read", "path": "/users/bob", "expect": "deny"}
            ]}
            """
        try passing.write(toFile: cases, atomically: true, encoding: .utf8)
        let ok = try HearthProcess(["rules", "test", rules, cases])
        #expect(try await ok.exitCode() == 0)
        #expect(ok.stdoutText.contains("4 of 4 cases as expected"))

        try passing.replacingOccurrences(of: #""path": "/users/bob", "expect": "deny""#, with: #""path": "/users/bob", "expect": "allow""#)
            .write(toFile: cases, atomically: true, encoding: .utf8)
        let mismatch = try HearthProcess(["rules", "test", rules, cases])
        #expect(try await mismatch.exitCode() == 7)
        let out = mismatch.stdoutText
        #expect(out.contains("FAIL signed-out read"))
        #expect(out.contains("3 of 4 cases as expected"))
    }

    @Test("users commands refuse a missing folder or a forgotten --project, keep the accounts private and export no hashes")
    func usersCommandsGuardTheDataFolder() async throws {
        let folder = temporaryDataFolder()
        let missing = try HearthProcess(["users", "list", "--data", folder + "/nowhere"])
        #expect(try await missing.exitCode() == 1)
        #expect(missing.stderrText.contains("there is no data folder"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/nowhere"), "listing does not create the folder")

        // One password user, one whose hash is the placeholder lookups show, one not an object.
        let export = folder + "/export.json"
        try #"{"users":[{"localId":"u1","email":"u1@example.com","rawPassword":"secret1"},{"localId":"u2","email":"u2@example.com","passwordHash":"UkVEQUNURUQ=","salt":"UkVEQUNURUQ="}]}"#
            .write(toFile: export, atomically: true, encoding: .utf8)
        let imported = try HearthProcess(["users", "import", export, "--data", folder, "--project", "p1"])
        #expect(try await imported.exitCode() == 0)
        let said = imported.stdoutText
        #expect(said.contains("1 users carry the redacted placeholder"))
        #expect(said.contains("imported 2 of 2 users"))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: folder + "/p1.auth.sqlite")[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "accounts file mode \(String(mode, radix: 8))")

        let forgotten = try HearthProcess(["users", "list", "--data", folder])
        #expect(try await forgotten.exitCode() == 1)
        #expect(forgotten.stderrText.contains("no accounts for project demo, only for p1"))
        // Naming a second project starts its accounts on purpose.
        let second = try HearthProcess(["users", "create", "--email", "p2@example.com", "--data", folder, "--project", "p2"])
        #expect(try await second.exitCode() == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/p2.auth.sqlite"))

        let exported = try HearthProcess(["users", "export", "--data", folder, "--project", "p1"])
        #expect(try await exported.exitCode() == 0)
        let text = exported.stdoutText
        #expect(text.contains(#""localId":"u1""#) && text.contains(#""localId":"u2""#))
        #expect(!text.contains("passwordHash") && !text.contains(#""salt""#))

        try #"{"users":[{"localId":"u3"},42]}"#.write(toFile: export, atomically: true, encoding: .utf8)
        let malformed = try HearthProcess(["users", "import", export, "--data", folder, "--project", "p1"])
        #expect(try await malformed.exitCode() == 1)
        #expect(malformed.stderrText.contains("user 1 is not a JSON object; nothing was imported"))
    }

    @Test("users import --hash-algo BCRYPT: a user from a Vapor or Spring server signs in with the old password")
    func usersImportBcryptFromAnotherBackend() async throws {
        let folder = temporaryDataFolder()
        let export = folder + "/export.json"
        // OpenBSD's bcrypt test vector for the password "U*U", base64 as auth exports carry hashes.
        let hash = Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8).base64EncodedString()
        try #"{"users":[{"localId":"v1","email":"vapor@example.com","passwordHash":"\#(hash)"}]}"#
            .write(toFile: export, atomically: true, encoding: .utf8)
        let imported = try HearthProcess(["users", "import", export, "--data", folder, "--hash-algo", "bcrypt"])
        #expect(try await imported.exitCode() == 0)
        #expect(imported.stdoutText.contains("imported 1 of 1 users"))
        let server = try await HearthProcess.serve(data: folder)
        let (wrong, _) = try await server.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body: #"{"email":"vapor@example.com","password":"U*U*"}"#,
            token: nil)
        #expect(wrong == 400)
        let (status, body) = try await server.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body: #"{"email":"vapor@example.com","password":"U*U"}"#,
            token: nil)
        #expect(status == 200, "\(body)")
        #expect(body.contains(#""localId":"v1""#))
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    @Test("users export --password-hashes, then import elsewhere with the printed command: the password still works")
    func usersMoveToAnotherServerWithTheirPasswords() async throws {
        let from = temporaryDataFolder()
        let to = temporaryDataFolder()
        let file = from + "/moving.json"
        let created = try HearthProcess(["users", "create", "--uid", "m1", "--email", "move@example.com", "--password", "s3cret-pass", "--data", from])
        #expect(try await created.exitCode() == 0)
        // A user imported from bcrypt who has not signed in since: that hash has other parameters.
        let bcrypt = Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8).base64EncodedString()
        try #"{"users":[{"localId":"v1","email":"vapor@example.com","passwordHash":"\#(bcrypt)"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let old = try HearthProcess(["users", "import", file, "--data", from, "--hash-algo", "BCRYPT"])
        #expect(try await old.exitCode() == 0)

        let exported = try HearthProcess(["users", "export", "--password-hashes", "--data", from, file])
        #expect(try await exported.exitCode() == 0)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "export file mode \(String(mode, radix: 8))")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: from).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        let said = exported.stderrText
        #expect(said.contains("1 users still have an imported password hash"))
        let printed = said.split(separator: "\n").first { $0.hasPrefix("import with: hearth ") }
        let command = try #require(printed, "\(said)")
        let arguments = command.dropFirst("import with: hearth ".count).split(separator: " ").map(String.init)
        #expect(arguments.prefix(3) == ["users", "import", file])

        let imported = try HearthProcess(arguments + ["--data", to])
        #expect(try await imported.exitCode() == 0)
        #expect(imported.stdoutText.contains("imported 2 of 2 users"), "\(imported.stdoutText)\(imported.stderrText)")
        let server = try await HearthProcess.serve(data: to)
        let signIn = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k"
        let (wrong, _) = try await server.request(.POST, signIn, body: #"{"email":"move@example.com","password":"s3cret-pasS"}"#, token: nil)
        #expect(wrong == 400)
        let (status, body) = try await server.request(.POST, signIn, body: #"{"email":"move@example.com","password":"s3cret-pass"}"#, token: nil)
        #expect(status == 200, "\(body)")
        #expect(body.contains(#""localId":"m1""#))
        // The bcrypt user came over without a password: it can reset it, not sign in with the old one.
        let (unmoved, said2) = try await server.request(.POST, signIn, body: #"{"email":"vapor@example.com","password":"U*U"}"#, token: nil)
        #expect(unmoved == 400, "\(said2)")
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    @Test("--password-cost: checked at start; a password hashed at one cost signs in at another and moves to it")
    func passwordCostCanChangeUnderExistingUsers() async throws {
        let bad = try HearthProcess(["serve", "--port", "0", "--data", temporaryDataFolder(), "--password-cost", "19"])
        #expect(try await bad.exitCode() == 6)
        #expect(bad.stderrText.contains("the password cost must be 12-18"))

        let folder = temporaryDataFolder()
        let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
        let signIn = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k"
        let account = #"{"email":"cost@example.com","password":"secret-cost"}"#
        func exportedCost(_ extra: [String] = []) async throws -> String {
            let export = try HearthProcess(["users", "export", "--password-hashes", "--data", folder, folder + "/users.json"] + extra)
            #expect(try await export.exitCode() == 0)
            return export.stderrText
        }
        let low = try await HearthProcess.serve(data: folder, extra: ["--password-cost", "12"])
        #expect(try await low.request(.POST, signUp, body: account, token: nil).0 == 200)
        #expect(try await low.request(.POST, signUp, body: #"{"email":"idle@example.com","password":"secret-idle"}"#, token: nil).0 == 200)
        low.signal(SIGTERM)
        #expect(try await low.exitCode() == 0)
        #expect(try await exportedCost().hasPrefix("password hashes: STANDARD_SCRYPT, N 4096, r 8, p 1, key length 32\n"))

        let standard = try await HearthProcess.serve(data: folder)
        let (status, body) = try await standard.request(.POST, signIn, body: account, token: nil)
        #expect(status == 200, "\(body)")
        standard.signal(SIGTERM)
        #expect(try await standard.exitCode() == 0)
        // `users create` hashes as the folder's configured server would.
        try #"{"passwordCost": 13}"#.write(toFile: folder + "/hearth.json", atomically: true, encoding: .utf8)
        let created = try HearthProcess(["users", "create", "--email", "cli@example.com", "--password", "secret-cli", "--data", folder])
        #expect(try await created.exitCode() == 0)
        #expect(try await exportedCost().contains("1 users have a password hashed with N 8192"))
        try FileManager.default.removeItem(atPath: folder + "/hearth.json")
        let cliUser = try HearthProcess(["users", "delete", "--data", folder, created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(try await cliUser.exitCode() == 0)
        // One hash of each N now: the file gets one of them, and stderr names the other.
        let both = try await exportedCost()
        #expect(both.hasPrefix("password hashes: STANDARD_SCRYPT, N 16384, r 8, p 1, key length 32\n"), "\(both)")
        #expect(both.contains("1 users have a password hashed with N 4096: written without it (export them with --hash-n 4096)"), "\(both)")
        #expect(try await exportedCost(["--hash-n", "4096"]).hasPrefix("password hashes: STANDARD_SCRYPT, N 4096,"))
    }

    @Test func usersImportFromFirebaseExportListAndClaims() async throws {
        let folder = temporaryDataFolder()
        let export = folder + "/export.json"
        // The published example user of Firebase's scrypt parameters.
        try #"{"users":[{"localId":"fb1","email":"user1@example.com","passwordHash":"lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==","salt":"42xEC+ixf3L2lw==","lastSignedInAt":"1700000000000"},{"localId":"fb2","phoneNumber":"+15550001111"}]}"#
            .write(toFile: export, atomically: true, encoding: .utf8)
        let missingKey = try HearthProcess(["users", "import", export, "--data", folder])
        #expect(try await missingKey.exitCode() == 1)
        #expect(missingKey.stderrText.contains("--hash-key"))
        let imported = try HearthProcess([
            "users", "import", export, "--data", folder,
            "--hash-key", "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        ])
        #expect(try await imported.exitCode() == 0)
        #expect(imported.stdoutText.contains("imported 2 of 2 users"))
        let list = try HearthProcess(["users", "list", "--data", folder])
        #expect(try await list.exitCode() == 0)
        let listed = list.stdoutText
        #expect(listed.contains("fb1\tuser1@example.com") && listed.contains("fb2\t-\t+15550001111"))
        let badClaims = try HearthProcess(["users", "set-claims", "fb1", #"{"sub":"x"}"#, "--data", folder])
        #expect(try await badClaims.exitCode() == 1)
        #expect(badClaims.stderrText.contains("FORBIDDEN_CLAIM : sub"))

        // The server started on that folder signs the imported user in with the original password.
        let server = try await HearthProcess.serve(data: folder)
        let (status, body) = try await server.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
            body: #"{"email":"user1@example.com","password":"user1password"}"#, token: nil)
        #expect(status == 200, "\(body)")
        #expect(body.contains(#""localId":"fb1""#))
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }
    @Test("the first start creates the signing key while listening; after `hearth auth rotate-key` and a restart the new key signs and old tokens still verify")
    func signingKeyCreationAndRotation() async throws {
        let folder = temporaryDataFolder()
        let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
        let jwksPath = "/.well-known/jwks.json"
        func kids(_ server: HearthProcess) async throws -> [String] {
            let (status, body) = try await server.request(.GET, jwksPath, token: nil)
            #expect(status == 200)
            let keys = (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["keys"] as? [[String: Any]]
            return keys?.compactMap { $0["kid"] as? String } ?? []
        }
        func kid(ofToken token: String) throws -> String {
            let header = try #require(token.split(separator: ".").first.flatMap { Base64URL.decode($0) })
            return try #require((try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any])?["kid"] as? String)
        }
        func idToken(_ body: String) throws -> String {
            try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["idToken"] as? String)
        }

        // Requested as soon as the server listens: the sign-up waits for the key being created, if it still is.
        let first = try await HearthProcess.serve(data: folder)
        let (status, body) = try await first.request(.POST, signUp, body: "{}", token: nil)
        #expect(status == 200, "\(body)")
        let oldToken = try idToken(body)
        let oldKid = try kid(ofToken: oldToken)
        #expect(try await kids(first) == [oldKid])
        first.signal(SIGTERM)
        #expect(try await first.exitCode() == 0)

        let rotate = try HearthProcess(["auth", "rotate-key", "--data", folder])
        #expect(try await rotate.exitCode() == 0)
        let newKid = try #require(rotate.stdoutText.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(newKid != oldKid)

        let second = try await HearthProcess.serve(data: folder)
        #expect(try await kids(second) == [newKid, oldKid])
        // The token signed before the rotation is still accepted.
        let (lookupStatus, lookup) = try await second.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", body: "{\"idToken\":\"\(oldToken)\"}", token: nil)
        #expect(lookupStatus == 200, "\(lookup)")
        let (again, signedUp) = try await second.request(.POST, signUp, body: "{}", token: nil)
        #expect(again == 200)
        #expect(try kid(ofToken: try idToken(signedUp)) == newKid)
        second.signal(SIGTERM)
        #expect(try await second.exitCode() == 0)
    }
}

