import HearthCore
import HearthStore
import Synchronization
import Testing

@testable import HearthAuth

/// Password guessing: how many guesses are evaluated, whom a lock slows down, and what a production server tells a
/// caller about an address it does not know.
@Suite("Sign-in throttling and enumeration protection")
struct SignInThrottleTests {
    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func service(_ options: AuthService.Options = .init(), hasher: PasswordHasher = PasswordHasher(rounds: 1 << 4)) -> AuthService {
        AuthService(projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: hasher, options: options)
    }

    /// A service whose accounts and attempt counts are `backing`'s (PostgreSQL's tables, or memory).
    func service(_ backing: AccountBacking, hasher: PasswordHasher = PasswordHasher(rounds: 1 << 4)) async throws -> AuthService {
        let folder = try AccountBacking.temporaryFolder()
        return AuthService(
            projectID: "p1", store: try await backing.store(at: folder), keys: KeyRing(current: AuthServiceTests.key), hasher: hasher,
            attempts: try await backing.attempts(at: folder))
    }

    @Test("forty concurrent wrong passwords: at most the limit of ten is hashed, the rest are refused unhashed",
          arguments: AccountBacking.allCases)
    func concurrentGuessesAreReservedBeforeHashing(_ backing: AccountBacking) async throws {
        // A real cost, so the guesses overlap: all forty are in flight before the first hash ends.
        var hasher = PasswordHasher(rounds: 1 << 12)
        let checks = CheckCounter()
        hasher.checks = checks
        let auth = try await service(backing, hasher: hasher)
        _ = try await auth.signUp(body(#"{"email":"v@x.io","password":"right-one"}"#), privileged: false)
        let codes = await withTaskGroup(of: String.self) { group in
            for i in 0..<40 {
                group.addTask {
                    do {
                        _ = try await auth.signInWithPassword(self.body(#"{"email":"v@x.io","password":"wrong-\#(i)"}"#), clientAddress: "203.0.113.9")
                        return "OK"
                    } catch let error as AuthError {
                        return error.code
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(checks.count.load(ordering: .relaxed) <= 10)
        #expect(codes.filter { $0 == "INVALID_PASSWORD" }.count == 10)
        #expect(codes.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count == 30)
    }

    @Test("ten wrong passwords from one address lock that address out of the account, not the owner elsewhere",
          arguments: AccountBacking.allCases)
    func theLockIsPerAccountAndAddress(_ backing: AccountBacking) async throws {
        let auth = try await service(backing)
        _ = try await auth.signUp(body(#"{"email":"o@x.io","password":"owner-pass"}"#), privileged: false)
        for i in 0..<10 {
            await #expect(throws: AuthError("INVALID_PASSWORD")) {
                try await auth.signInWithPassword(body(#"{"email":"o@x.io","password":"guess-\#(i)"}"#), clientAddress: "198.51.100.66")
            }
        }
        await #expect(throws: AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")) {
            try await auth.signInWithPassword(body(#"{"email":"o@x.io","password":"owner-pass"}"#), clientAddress: "198.51.100.66")
        }
        _ = try await auth.signInWithPassword(body(#"{"email":"o@x.io","password":"owner-pass"}"#), clientAddress: "203.0.113.7")
    }

    @Test("successful sign-ins give their attempt back: one address signs in more than the per-address limit",
          arguments: AccountBacking.allCases)
    func successesDoNotCount(_ backing: AccountBacking) async throws {
        let auth = try await service(backing)
        _ = try await auth.signUp(body(#"{"email":"s@x.io","password":"secret12"}"#), privileged: false)
        for _ in 0..<105 {
            _ = try await auth.signInWithPassword(body(#"{"email":"s@x.io","password":"secret12"}"#), clientAddress: "192.0.2.1")
        }
    }

    @Test("a production server hides which emails exist by default, and tells a disabled account only to its password")
    func productionHidesWhichEmailsExist() async throws {
        #expect(AuthService.Options.production(authorizedDomains: []).emailPrivacy)
        let auth = service(.production(authorizedDomains: []))
        let user = try await auth.signUp(body(#"{"email":"d@x.io","password":"secret12"}"#), privileged: false)
        for attempt in [#"{"email":"nobody@x.io","password":"secret12"}"#, #"{"email":"d@x.io","password":"wrong12"}"#] {
            await #expect(throws: AuthError("INVALID_LOGIN_CREDENTIALS")) { try await auth.signInWithPassword(body(attempt)) }
        }
        let uri = try await auth.createAuthUri(body(#"{"identifier":"d@x.io"}"#))
        #expect(uri["registered"] == nil && uri["signinMethods"] == nil)

        _ = try await auth.update(body(#"{"localId":"\#(try #require(user["localId"]?.stringValue))","disableUser":true}"#), privileged: true)
        await #expect(throws: AuthError("INVALID_LOGIN_CREDENTIALS")) {
            try await auth.signInWithPassword(body(#"{"email":"d@x.io","password":"wrong12"}"#))
        }
        await #expect(throws: AuthError("USER_DISABLED")) { try await auth.signInWithPassword(body(#"{"email":"d@x.io","password":"secret12"}"#)) }

        // Turned off, the emulator's answers come back.
        let open = service(.production(authorizedDomains: [], emailPrivacy: false))
        await #expect(throws: AuthError("EMAIL_NOT_FOUND")) {
            try await open.signInWithPassword(body(#"{"email":"nobody@x.io","password":"secret12"}"#))
        }
    }
}
