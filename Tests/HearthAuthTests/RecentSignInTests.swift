import Foundation
import HearthAuth
import HearthCore
import HearthWire
import HearthStore
import Testing

/// Outside `--dev`, a password or email change and deleting the account need a sign-in within the last five minutes
/// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`), as in Firebase's production service; re-authenticating proves the user without
/// making accounts.
@Suite("Recent sign-in for sensitive changes")
struct RecentSignInTests {
    static let key = try! SigningKey.generate()

    func service(window: Int64? = 300, clock: TestClock, store: MemoryAccountStore = MemoryAccountStore()) -> AuthService {
        var options = AuthService.Options(identityProviders: .emulator)
        options.recentSignInWindow = window
        return AuthService(
            projectID: "p1", store: store, keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4), options: options,
            clock: { clock.now })
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func string(_ value: some WireAnswer, _ key: String) throws -> String { try #require(value.wire[key]?.stringValue) }

    /// The code `call` is refused with, or nil if it succeeds.
    func refusal(_ call: () async throws -> some Any) async -> String? {
        do {
            _ = try await call()
            return nil
        } catch {
            return (error as? AuthError)?.code ?? "\(error)"
        }
    }

    @Test("the production options ask for a sign-in within five minutes; the emulator's ask nothing")
    func defaults() {
        #expect(AuthService.Options.production(authorizedDomains: []).recentSignInWindow == 300)
        #expect(AuthService.Options().recentSignInWindow == nil)
    }

    @Test("password and email changes and deletion need a recent sign-in; a refresh does not count, a sign-in does")
    func sensitiveChangesNeedARecentSignIn() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let signedUp = try await auth.signUp(body(#"{"email":"ann@x.io","password":"secret1"}"#), privileged: false)
        let uid = try string(signedUp, "localId")
        clock.advance(seconds: 299)
        // A change that is no sign-in (new tokens asked for with the profile) keeps the session's time.
        let changed = try await auth.update(
            body(#"{"idToken":"\#(try string(signedUp, "idToken"))","displayName":"Ann","returnSecureToken":true}"#), privileged: false)
        var token = try string(changed, "idToken")

        clock.advance(seconds: 2)  // 301 s after signing up
        #expect(await refusal { try await auth.update(body(#"{"idToken":"\#(token)","password":"secret3"}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await refusal { try await auth.update(body(#"{"idToken":"\#(token)","email":"ann2@x.io"}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await refusal { try await auth.delete(body(#"{"idToken":"\#(token)"}"#), privileged: false) } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await refusal {
            try await auth.sendOobCode(body(#"{"requestType":"VERIFY_AND_CHANGE_EMAIL","idToken":"\#(token)","newEmail":"ann3@x.io"}"#),
                privileged: false, linkBase: "http://localhost")
        } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // A refreshed token keeps the sign-in's time.
        let refreshed = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(changed, "refreshToken")))
        #expect(await refusal { try await auth.update(body(#"{"idToken":"\#(try string(refreshed, "id_token"))","password":"secret4"}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // Not sensitive: the profile. Admin calls are exempt.
        _ = try await auth.update(body(#"{"idToken":"\#(token)","displayName":"Ann B"}"#), privileged: false)
        _ = try await auth.update(body(#"{"localId":"\#(uid)","password":"secret3"}"#), privileged: true)

        // Signing in again allows the change, for five minutes.
        token = try string(try await auth.signInWithPassword(body(#"{"email":"ann@x.io","password":"secret3"}"#)), "idToken")
        _ = try await auth.update(body(#"{"idToken":"\#(token)","email":"ann2@x.io"}"#), privileged: false)
        let again = try string(try await auth.signInWithPassword(body(#"{"email":"ann2@x.io","password":"secret3"}"#)), "idToken")
        clock.advance(seconds: 120)
        _ = try await auth.delete(body(#"{"idToken":"\#(again)"}"#), privileged: false)
    }

    /// The one pending out-of-band code of this type for `email` (emulator listing).
    func oobCode(_ auth: AuthService, _ requestType: String, _ email: String) async throws -> String {
        guard case .array(let items)? = try await auth.pendingOobCodes()["oobCodes"] else { throw CancellationError() }
        let matching = items.filter { $0["requestType"]?.stringValue == requestType && $0["email"]?.stringValue == email }
        return try string(try #require(matching.last), "oobCode")
    }

    @Test("linking an email to a signed-in account needs a recent sign-in too, and a replaced email ends other sessions")
    func linkingAnEmailNeedsARecentSignIn() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let user = try await auth.signUp(body(#"{"email":"old@x.io","password":"secret1"}"#), privileged: false)
        let token = try string(user, "idToken")
        _ = try await auth.sendOobCode(body(#"{"requestType":"EMAIL_SIGNIN","email":"new@x.io"}"#), privileged: false, linkBase: "http://h")
        let code = try await oobCode(auth, "EMAIL_SIGNIN", "new@x.io")
        let link = #"{"email":"new@x.io","oobCode":"\#(code)","idToken":"\#(token)"}"#
        clock.advance(seconds: 301)
        #expect(await refusal { try await auth.signInWithEmailLink(body(link)) } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await refusal { try await auth.signUp(body(#"{"idToken":"\#(token)","email":"b@x.io","password":"secret2"}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")

        // Within the window the email is replaced, and the sessions from before end.
        let fresh = try string(try await auth.signInWithPassword(body(#"{"email":"old@x.io","password":"secret1"}"#)), "idToken")
        clock.advance(seconds: 1)
        let linked = try await auth.signInWithEmailLink(body(#"{"email":"new@x.io","oobCode":"\#(code)","idToken":"\#(fresh)"}"#))
        #expect(linked["email"] == .string("new@x.io"))
        #expect(await refusal { try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(user, "refreshToken"))) }
            == "TOKEN_EXPIRED")
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(linked, "refreshToken")))
    }

    /// Sends an SMS code to `phone` and returns the body fields that verify it.
    func verification(_ auth: AuthService, _ phone: String) async throws -> String {
        let session = try string(try await auth.sendVerificationCode(body(#"{"phoneNumber":"\#(phone)"}"#)), "sessionInfo")
        guard case .array(let items)? = try await auth.pendingVerificationCodes()["verificationCodes"],
            let code = items.first(where: { $0["sessionInfo"]?.stringValue == session })?["code"]?.stringValue
        else { throw CancellationError() }
        return #""sessionInfo":"\#(session)","code":"\#(code)""#
    }

    @Test("a session's sign-in time is its own: a sign-in elsewhere or a link of the caller's own does not refresh it")
    func theSignInTimeBelongsToTheSession() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let stolen = try await auth.signUp(body(#"{"email":"ann@x.io","password":"secret1"}"#), privileged: false)
        clock.advance(seconds: 400)
        // The owner signs in on another device; the stolen session's refresh still says when *it* signed in.
        _ = try await auth.signInWithPassword(body(#"{"email":"ann@x.io","password":"secret1"}"#))
        let refreshed = try string(try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(stolen, "refreshToken"))), "id_token")
        #expect(await refusal { try await auth.delete(body(#"{"idToken":"\#(refreshed)"}"#), privileged: false) } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // The session cannot add a way in of the thief's own (a phone, a provider account) to sign in with afresh.
        let phoneLink = try await verification(auth, "+15550002001")
        #expect(await refusal { try await auth.signInWithPhoneNumber(body("{" + phoneLink + #","idToken":"\#(refreshed)"}"#)) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        let apple = #""requestUri":"http://localhost","postBody":"providerId=apple.com&id_token={\"sub\":\"thief\"}""#
        #expect(await refusal { try await auth.signInWithIdp(body("{" + apple + #","idToken":"\#(refreshed)"}"#)) } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // Nor take the password or email away to look anonymous.
        #expect(await refusal { try await auth.update(body(#"{"idToken":"\#(refreshed)","deleteProvider":["password"]}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await refusal { try await auth.update(body(#"{"idToken":"\#(refreshed)","deleteAttribute":["EMAIL"]}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // The SMS code of the refused link is still good for the thief's own sign-in: a new account, not ann's.
        let own = try await auth.signInWithPhoneNumber(body("{" + phoneLink + "}"))
        #expect(own["isNewUser"] == .bool(true))

        // A recent session may link, and its tokens keep the session's time (no fresh sign-in by linking).
        let fresh = try await auth.signInWithPassword(body(#"{"email":"ann@x.io","password":"secret1"}"#))
        clock.advance(seconds: 200)
        let linked = try await auth.signInWithIdp(body("{" + apple + #","idToken":"\#(try string(fresh, "idToken"))"}"#))
        clock.advance(seconds: 101)
        #expect(await refusal { try await auth.delete(body(#"{"idToken":"\#(try string(linked, "idToken"))"}"#), privileged: false) }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")

        // A trial user's first credential is a sign-in with it: the session is recent from then on.
        let trial = try string(try await auth.signUp(body("{}"), privileged: false), "idToken")
        clock.advance(seconds: 400)
        let upgraded = try await auth.signInWithPhoneNumber(body("{" + (try await verification(auth, "+15550002003")) + #","idToken":"\#(trial)"}"#))
        _ = try await auth.update(body(#"{"idToken":"\#(try string(upgraded, "idToken"))","email":"t@x.io","password":"secret1"}"#), privileged: false)
    }

    @Test("a recent session that replaces its phone number or email ends the other sessions; the old address can undo the email")
    func replacingACredentialEndsOtherSessions() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let first = try await auth.signInWithPhoneNumber(body("{" + (try await verification(auth, "+15550003001")) + "}"))
        let other = try await auth.signInWithPhoneNumber(body("{" + (try await verification(auth, "+15550003001")) + "}"))
        clock.advance(seconds: 2)
        let replaced = try await auth.signInWithPhoneNumber(
            body("{" + (try await verification(auth, "+15550003002")) + #","idToken":"\#(try string(first, "idToken"))"}"#))
        #expect(replaced["phoneNumber"] == .string("+15550003002"))
        #expect(await refusal { try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(other, "refreshToken"))) } == "TOKEN_EXPIRED")
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(replaced, "refreshToken")))

        let ann = try await auth.signUp(body(#"{"email":"ann@x.io","password":"secret1"}"#), privileged: false)
        _ = try await auth.sendOobCode(body(#"{"requestType":"EMAIL_SIGNIN","email":"ann2@x.io"}"#), privileged: false, linkBase: "http://h")
        _ = try await auth.signInWithEmailLink(
            body(#"{"email":"ann2@x.io","oobCode":"\#(try await oobCode(auth, "EMAIL_SIGNIN", "ann2@x.io"))","idToken":"\#(try string(ann, "idToken"))"}"#))
        let undo = try await oobCode(auth, "RECOVER_EMAIL", "ann@x.io")
        #expect(!undo.isEmpty, "the previous address got a link that undoes the change")
    }

    @Test("tokens from a change that ended the other sessions are no older than it (firebase-admin checks auth_time against validSince)")
    func tokensAfterARevokingChangeAreNotOlderThanIt() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let user = try await auth.signUp(body(#"{"email":"ann@x.io","password":"secret1"}"#), privileged: false)
        clock.advance(seconds: 200)
        let changed = try await auth.update(body(#"{"idToken":"\#(try string(user, "idToken"))","password":"secret2"}"#), privileged: false)
        let payload = try #require(Base64URL.decode(try string(changed, "idToken").split(separator: ".")[1]))
        let claims = try JSONValue.parse(payload)
        #expect(claims["auth_time"] == .int(clock.now / 1000))
        let refreshed = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(changed, "refreshToken")))
        let again = try JSONValue.parse(try #require(Base64URL.decode(try string(refreshed, "id_token").split(separator: ".")[1])))
        #expect(again["auth_time"] == .int(clock.now / 1000), "the session's refreshes keep it")
    }

    @Test("anonymous users and the emulator are not asked")
    func anonymousUsersAndTheEmulatorAreExempt() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let trial = try await auth.signUp(body("{}"), privileged: false)
        clock.advance(seconds: 1000)
        // The trial user of the loyalty app links an email and password long after starting.
        let linked = try await auth.update(
            body(#"{"idToken":"\#(try string(trial, "idToken"))","email":"trial@x.io","password":"secret1"}"#), privileged: false)
        #expect(linked["email"] == .string("trial@x.io"))
        let other = try await auth.signUp(body("{}"), privileged: false)
        clock.advance(seconds: 1000)
        _ = try await auth.delete(body(#"{"idToken":"\#(try string(other, "idToken"))"}"#), privileged: false)

        let emulatorClock = TestClock()
        let emulator = service(window: nil, clock: emulatorClock)
        let user = try await emulator.signUp(body(#"{"email":"bob@x.io","password":"secret1"}"#), privileged: false)
        emulatorClock.advance(seconds: 3000)
        _ = try await emulator.update(body(#"{"idToken":"\#(try string(user, "idToken"))","password":"secret2"}"#), privileged: false)
    }

    @Test("re-authenticating with a phone code or a provider token never makes an account")
    func reauthenticationMakesNoAccounts() async throws {
        let clock = TestClock()
        let store = MemoryAccountStore()
        let auth = service(clock: clock, store: store)
        func accounts() async throws -> Int { try await store.read { try $0.accountCount() } }

        let session = try string(try await auth.sendVerificationCode(body(#"{"phoneNumber":"+15550001234"}"#)), "sessionInfo")
        guard case .array(let items)? = try await auth.pendingVerificationCodes()["verificationCodes"],
            let code = items.first(where: { $0["sessionInfo"]?.stringValue == session })?["code"]?.stringValue
        else { throw CancellationError() }
        let verify = #"{"sessionInfo":"\#(session)","code":"\#(code)""#
        #expect(await refusal { try await auth.signInWithPhoneNumber(body(verify + #","operation":"REAUTH"}"#)) } == "USER_NOT_FOUND")
        #expect(try await accounts() == 0)
        // The refused attempt left the code usable.
        let signedIn = try await auth.signInWithPhoneNumber(body(verify + "}"))
        #expect(signedIn["isNewUser"] == .bool(true))

        let apple = #"{"requestUri":"http://localhost","postBody":"providerId=apple.com&id_token={\"sub\":\"a-1\"}","returnSecureToken":true"#
        #expect(await refusal { try await auth.signInWithIdp(body(apple + #","autoCreate":false}"#)) } == "USER_NOT_FOUND")
        #expect(try await accounts() == 1)
        let created = try await auth.signInWithIdp(body(apple + "}"))
        #expect(created["isNewUser"] == .bool(true))
        let reauthenticated = try await auth.signInWithIdp(body(apple + #","autoCreate":false}"#))
        #expect(reauthenticated["localId"] == created["localId"])
    }
}
