import HearthCore
import HearthStore
import Synchronization
import Testing

@testable import HearthAuth

/// With email-enumeration protection, a sign-in for an unknown email does the same password work as a wrong
/// password, so its answer time does not tell the two apart either.
@Suite("Sign-in work without an account")
struct SignInTimingTests {
    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    @Test(arguments: [false, true])
    func anUnknownEmailIsCheckedLikeAWrongPassword(emailPrivacy: Bool) async throws {
        var hasher = PasswordHasher(rounds: 1 << 4)
        let checks = CheckCounter()
        hasher.checks = checks
        let auth = AuthService(
            projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: hasher, options: .init(emailPrivacy: emailPrivacy))
        _ = try await auth.signUp(body(#"{"email":"known@x.io","password":"secret1"}"#), privileged: false)
        // An account with this email but no password (email-link sign-in only).
        _ = try await auth.signUp(body(#"{"email":"nopass@x.io"}"#), privileged: true)

        let wrong = await #expect(throws: AuthError.self) { try await auth.signInWithPassword(body(#"{"email":"known@x.io","password":"nope12"}"#)) }
        #expect(checks.count.load(ordering: .relaxed) == 1)
        let unknown = await #expect(throws: AuthError.self) { try await auth.signInWithPassword(body(#"{"email":"who@x.io","password":"nope12"}"#)) }
        let noPassword = await #expect(throws: AuthError.self) { try await auth.signInWithPassword(body(#"{"email":"nopass@x.io","password":"nope12"}"#)) }
        // Without protection the answers already differ, and no hash is spent on an unknown email.
        #expect(checks.count.load(ordering: .relaxed) == (emailPrivacy ? 3 : 1))
        if emailPrivacy {
            #expect(wrong?.code == "INVALID_LOGIN_CREDENTIALS" && unknown?.code == "INVALID_LOGIN_CREDENTIALS")
            #expect(noPassword?.code == "INVALID_LOGIN_CREDENTIALS")
        } else {
            #expect(wrong?.code == "INVALID_PASSWORD" && unknown?.code == "EMAIL_NOT_FOUND")
        }
    }
}
