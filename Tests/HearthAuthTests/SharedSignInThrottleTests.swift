import HearthCore
import HearthPostgres
import HearthStore
import Synchronization
import Testing

@testable import HearthAuth

/// Two auth services ("nodes"), each with its own PostgreSQL connections, serving one project: the sign-in and
/// message limits are the cluster's, not each node's.
@Suite("Sign-in limits shared by nodes on PostgreSQL", .enabled(if: PostgresTestServer.url != nil, "HEARTH_TEST_POSTGRES is not set"))
struct SharedSignInThrottleTests {
    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    /// Runs `body` with two services on one fresh project, each on a `PostgresServer` of its own.
    func withTwoNodes(
        hashers: [PasswordHasher] = [PasswordHasher(rounds: 1 << 4), PasswordHasher(rounds: 1 << 4)],
        options: AuthService.Options = AuthService.Options(),
        _ body: ([AuthService]) async throws -> Void
    ) async throws {
        let servers = [try await PostgresTestServer.server(), try await PostgresTestServer.anotherNode()]
        let project = PostgresTestServer.freshProject()
        let keys = KeyRing(current: AuthServiceTests.key)
        let nodes = zip(servers, hashers).map { server, hasher in
            AuthService(
                projectID: project, store: PostgresAccountStore(server: server, project: project), keys: keys, hasher: hasher,
                options: options, attempts: PostgresAttemptStore(server: server, project: project))
        }
        do {
            try await body(nodes)
        } catch {
            try? await servers[1].shutdown()
            throw error
        }
        try await servers[1].shutdown()
    }

    /// The error code of a password sign-in (`OK` when it succeeded).
    func signIn(_ auth: AuthService, _ email: String, _ password: String, from address: String = "198.51.100.7") async -> String {
        do {
            _ = try await auth.signInWithPassword(body(#"{"email":"\#(email)","password":"\#(password)"}"#), clientAddress: address)
            return "OK"
        } catch let error as AuthError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test("ten wrong passwords alternating between two nodes lock the email on both")
    func failuresOnEitherNodeCountTogether() async throws {
        try await withTwoNodes { nodes in
            _ = try await nodes[0].signUp(body(#"{"email":"o@x.io","password":"owner-pass"}"#), privileged: false)
            var codes: [String] = []
            for i in 0..<10 { codes.append(await signIn(nodes[i % 2], "o@x.io", "guess-\(i)")) }
            #expect(codes == Array(repeating: "INVALID_PASSWORD", count: 10))
            // Nine of them would not have locked either node on its own (five each); together they do.
            let right = [await signIn(nodes[0], "o@x.io", "owner-pass"), await signIn(nodes[1], "o@x.io", "owner-pass")]
            #expect(right == ["TOO_MANY_ATTEMPTS_TRY_LATER", "TOO_MANY_ATTEMPTS_TRY_LATER"])
            // The owner elsewhere is not locked out, on either node.
            let elsewhere = [
                await signIn(nodes[0], "o@x.io", "owner-pass", from: "203.0.113.1"),
                await signIn(nodes[1], "o@x.io", "owner-pass", from: "203.0.113.1"),
            ]
            #expect(elsewhere == ["OK", "OK"])
        }
    }

    @Test("forty concurrent wrong passwords over two nodes: ten are hashed in all, the rest refused unhashed")
    func concurrentGuessesOnTwoNodesNeverPassTheLimit() async throws {
        // A real cost, so the guesses overlap on both nodes.
        let checks = [CheckCounter(), CheckCounter()]
        var hashers = [PasswordHasher(rounds: 1 << 12), PasswordHasher(rounds: 1 << 12)]
        hashers[0].checks = checks[0]
        hashers[1].checks = checks[1]
        try await withTwoNodes(hashers: hashers) { nodes in
            _ = try await nodes[1].signUp(body(#"{"email":"v@x.io","password":"right-one"}"#), privileged: false)
            let codes = await withTaskGroup(of: String.self) { group in
                for i in 0..<40 {
                    group.addTask { await self.signIn(nodes[i % 2], "v@x.io", "wrong-\(i)", from: "203.0.113.9") }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            let hashed = checks[0].count.load(ordering: .relaxed) + checks[1].count.load(ordering: .relaxed)
            // Counted outside `#expect`, whose closures Swift 6.3 can confuse (scripts/check-test-closures).
            let wrong = codes.filter { $0 == "INVALID_PASSWORD" }.count
            let refused = codes.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count
            #expect(hashed <= 10)
            #expect(wrong == 10, "\(codes)")
            #expect(refused == 30, "\(codes)")
        }
    }

    @Test("messages to one recipient count over both nodes")
    func messageQuotaIsShared() async throws {
        try await withTwoNodes(options: AuthService.Options(messagesPerRecipientPerHour: 3)) { nodes in
            var codes: [String] = []
            for i in 0..<5 {
                do {
                    _ = try await nodes[i % 2].sendVerificationCode(body(#"{"phoneNumber":"+15550100"}"#))
                    codes.append("OK")
                } catch let error as AuthError {
                    codes.append(error.code)
                }
            }
            #expect(codes == ["OK", "OK", "OK", "QUOTA_EXCEEDED", "QUOTA_EXCEEDED"])
        }
    }
}
