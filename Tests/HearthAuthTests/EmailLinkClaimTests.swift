import HearthAuth
import HearthCore
import HearthWire
import HearthStore
import Testing

/// Someone signs up with another person's email and a password; when the owner later signs in with an email link,
/// the account becomes theirs alone.
@Suite("Email link into a pre-registered account")
struct EmailLinkClaimTests {
    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func service(_ clock: TestClock) -> AuthService {
        AuthService(
            projectID: "p1", store: MemoryAccountStore(), keys: KeyRing(current: AuthServiceTests.key), hasher: PasswordHasher(rounds: 1 << 4),
            options: .production(authorizedDomains: ["app.example.com"], emailPrivacy: false), clock: { clock.now })
    }

    /// Asks for a sign-in link for `email` and returns its code.
    func signInCode(_ auth: AuthService, _ email: String) async throws -> String {
        let sent = try await auth.sendOobCode(
            body(#"{"requestType":"EMAIL_SIGNIN","email":"\#(email)","returnOobLink":true}"#), privileged: true, linkBase: "https://api.example.com")
        return try #require(sent["oobCode"]?.stringValue)
    }

    @Test("the link removes the squatter's password and ends the squatter's sessions; the owner's session works")
    func emailLinkClaimsAnUnverifiedAccount() async throws {
        let clock = TestClock()
        let auth = service(clock)
        let squatter = try await auth.signUp(body(#"{"email":"carol@example.com","password":"attacker1"}"#), privileged: false)
        let squatterRefresh = try #require(squatter["refreshToken"]?.stringValue)
        let squatterID = try #require(squatter["idToken"]?.stringValue)
        clock.advance(seconds: 5)

        let code = try await signInCode(auth, "carol@example.com")
        let carol = try await auth.signInWithEmailLink(body(#"{"email":"carol@example.com","oobCode":"\#(code)"}"#))
        #expect(carol["localId"] == squatter["localId"], "the link reaches the account that has the address")
        #expect(carol["isNewUser"] == .bool(false))

        await #expect(throws: AuthError("INVALID_PASSWORD")) {
            try await auth.signInWithPassword(body(#"{"email":"carol@example.com","password":"attacker1"}"#))
        }
        await #expect(throws: AuthError("TOKEN_EXPIRED")) { try await auth.refresh(.init(grantType: "refresh_token", refreshToken: squatterRefresh)) }
        await #expect(throws: AuthError("TOKEN_EXPIRED")) { try await auth.lookup(body(#"{"idToken":"\#(squatterID)"}"#), privileged: false) }
        let looked = try await auth.lookup(body(#"{"idToken":"\#(try #require(carol["idToken"]?.stringValue))"}"#), privileged: false)
        #expect(looked["users"]?[0]?["emailVerified"] == .bool(true))
        #expect(looked["users"]?[0]?["passwordHash"] == nil)
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try #require(carol["refreshToken"]?.stringValue)))
    }

    @Test("a verified account keeps its password and sessions when its owner also signs in with a link")
    func aVerifiedAccountKeepsItsPassword() async throws {
        let clock = TestClock()
        let auth = service(clock)
        let owner = try await auth.signUp(body(#"{"email":"dan@example.com","password":"secret12"}"#), privileged: false)
        let uid = try #require(owner["localId"]?.stringValue)
        _ = try await auth.update(body(#"{"localId":"\#(uid)","emailVerified":true}"#), privileged: true)
        clock.advance(seconds: 5)
        let code = try await signInCode(auth, "dan@example.com")
        _ = try await auth.signInWithEmailLink(body(#"{"email":"dan@example.com","oobCode":"\#(code)"}"#))
        _ = try await auth.signInWithPassword(body(#"{"email":"dan@example.com","password":"secret12"}"#))
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try #require(owner["refreshToken"]?.stringValue)))
    }

    @Test("an address set unverified on a passwordless account is claimed too: the setter's sessions end")
    func emailLinkClaimsAnUnverifiedAddressWithoutAPassword() async throws {
        let clock = TestClock()
        let auth = service(clock)
        let trial = try await auth.signUp(body("{}"), privileged: false)
        let trialID = try #require(trial["idToken"]?.stringValue)
        let set = try await auth.update(body(#"{"idToken":"\#(trialID)","email":"erin@example.com","returnSecureToken":true}"#), privileged: false)
        let setterRefresh = try #require((set["refreshToken"] ?? trial["refreshToken"])?.stringValue)
        clock.advance(seconds: 5)
        let code = try await signInCode(auth, "erin@example.com")
        let erin = try await auth.signInWithEmailLink(body(#"{"email":"erin@example.com","oobCode":"\#(code)"}"#))
        #expect(erin["localId"] == trial["localId"])
        await #expect(throws: AuthError("TOKEN_EXPIRED")) { try await auth.refresh(.init(grantType: "refresh_token", refreshToken: setterRefresh)) }
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try #require(erin["refreshToken"]?.stringValue)))
    }
}
