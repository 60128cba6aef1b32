import Foundation
import HearthAuth
import HearthCore
import HearthWire
import HearthStore
import Testing

/// Who may change what on an account, and when one-time codes are used up: the cases a wire review found open.
@Suite("Auth account safety")
struct AuthAccountSafetyTests {
    static let key = try! SigningKey.generate()

    func service(emailPrivacy: Bool = false, clock: TestClock = TestClock(), sender: OutboxSender = OutboxSender()) -> AuthService {
        AuthService(
            projectID: "p1", store: MemoryAccountStore(), keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4),
            options: .init(emailPrivacy: emailPrivacy), sender: sender, clock: { clock.now })
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func string(_ value: some WireAnswer, _ key: String) throws -> String { try #require(value.wire[key]?.stringValue) }

    /// The one pending out-of-band code of this type (emulator listing).
    func oobCode(_ auth: AuthService, _ requestType: String) async throws -> String {
        guard case .array(let items)? = try await auth.pendingOobCodes()["oobCodes"] else { throw CancellationError() }
        let matching = items.filter { $0["requestType"]?.stringValue == requestType }
        try #require(matching.count == 1)
        return try string(matching[0], "oobCode")
    }

    /// Sends an SMS code to `phone` and returns (sessionInfo, code).
    func smsCode(_ auth: AuthService, _ phone: String) async throws -> (String, String) {
        let session = try string(try await auth.sendVerificationCode(body(#"{"phoneNumber":"\#(phone)"}"#)), "sessionInfo")
        guard case .array(let items)? = try await auth.pendingVerificationCodes()["verificationCodes"],
            let entry = items.first(where: { $0["sessionInfo"]?.stringValue == session })
        else { throw CancellationError() }
        return (session, try string(entry, "code"))
    }

    @Test("a client cannot put a phone number on its account without an SMS code; an admin can")
    func phoneNumbersNeedACode() async throws {
        let auth = service()
        let a = try await auth.signUp(body(#"{"email":"a@x.io","password":"secret1"}"#), privileged: false)
        let uid = try string(a, "localId")
        _ = try await auth.update(body(#"{"idToken":"\#(try string(a, "idToken"))","phoneNumber":"+15551985763"}"#), privileged: false)
        let looked = try await auth.lookup(body(#"{"localId":["\#(uid)"]}"#), privileged: true)
        guard case .array(let users)? = looked["users"] else { Issue.record("no users in \(looked)"); return }
        #expect(users.first?["phoneNumber"] == nil)
        // The number's owner signs in with a code and gets their own account, not a's.
        let (session, code) = try await smsCode(auth, "+15551985763")
        let owner = try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(code)"}"#))
        #expect(owner["isNewUser"] == .bool(true))
        #expect(try string(owner, "localId") != uid)
        // An admin still sets numbers directly.
        _ = try await auth.update(body(#"{"localId":"\#(uid)","phoneNumber":"+15550001111"}"#), privileged: true)
        let after = try await auth.lookup(body(#"{"localId":["\#(uid)"]}"#), privileged: true)
        guard case .array(let updated)? = after["users"] else { Issue.record("no users in \(after)"); return }
        #expect(updated.first?["phoneNumber"] == .string("+15550001111"))
    }

    @Test("admin create and update take phone numbers in the format SMS sign-in accepts")
    func adminPhoneNumbersMatchSignIn() async throws {
        let auth = service()
        await #expect(throws: AuthError("INVALID_PHONE_NUMBER", "Invalid format.")) {
            try await auth.signUp(body(#"{"localId":"u1","phoneNumber":"+1 555 555 0199"}"#), privileged: true)
        }
        _ = try await auth.signUp(body(#"{"localId":"u1","phoneNumber":"+15555550199"}"#), privileged: true)
        await #expect(throws: AuthError("INVALID_PHONE_NUMBER", "Invalid format.")) {
            try await auth.update(body(#"{"localId":"u1","phoneNumber":"+1-555-555-0100"}"#), privileged: true)
        }
        let (session, code) = try await smsCode(auth, "+15555550199")
        let signedIn = try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(code)"}"#))
        #expect(signedIn["localId"] == .string("u1"))
    }

    @Test("a VERIFY_EMAIL code verifies only the address it was sent to")
    func verifyEmailCodesAreBoundToTheirAddress() async throws {
        let auth = service()
        let a = try await auth.signUp(body(#"{"email":"attacker@x.io","password":"secret1"}"#), privileged: false)
        _ = try await auth.sendOobCode(
            body(#"{"requestType":"VERIFY_EMAIL","idToken":"\#(try string(a, "idToken"))"}"#), privileged: false, linkBase: "http://h")
        let code = try await oobCode(auth, "VERIFY_EMAIL")
        let changed = try await auth.update(
            body(#"{"idToken":"\#(try string(a, "idToken"))","email":"victim@x.io","returnSecureToken":true}"#), privileged: false)
        await #expect(throws: AuthError("INVALID_OOB_CODE")) { try await auth.update(body(#"{"oobCode":"\#(code)"}"#), privileged: false) }
        let looked = try await auth.lookup(body(#"{"idToken":"\#(try string(changed, "idToken"))"}"#), privileged: false)
        guard case .array(let users)? = looked["users"] else { Issue.record("no users in \(looked)"); return }
        #expect(users.first?["email"] == .string("victim@x.io"))
        #expect(users.first?["emailVerified"] == .bool(false))
    }

    @Test("a request that fails leaves its one-time code usable; a successful one uses it up")
    func failuresDoNotUseUpCodes() async throws {
        let auth = service()
        _ = try await auth.signUp(body(#"{"email":"r@x.io","password":"secret1"}"#), privileged: false)
        // A password-reset code sent to the wrong endpoint stays good for resetPassword.
        _ = try await auth.sendOobCode(body(#"{"requestType":"PASSWORD_RESET","email":"r@x.io"}"#), privileged: false, linkBase: "http://h")
        let reset = try await oobCode(auth, "PASSWORD_RESET")
        await #expect(throws: AuthError("INVALID_OOB_CODE")) { try await auth.update(body(#"{"oobCode":"\#(reset)"}"#), privileged: false) }
        _ = try await auth.resetPassword(body(#"{"oobCode":"\#(reset)","newPassword":"another1"}"#))
        await #expect(throws: AuthError("INVALID_OOB_CODE")) {
            try await auth.resetPassword(body(#"{"oobCode":"\#(reset)","newPassword":"third12"}"#))
        }
        // An email link with a bad idToken can be retried without one.
        _ = try await auth.sendOobCode(body(#"{"requestType":"EMAIL_SIGNIN","email":"l@x.io"}"#), privileged: false, linkBase: "http://h")
        let link = try await oobCode(auth, "EMAIL_SIGNIN")
        await #expect(throws: AuthError.self) {
            try await auth.signInWithEmailLink(body(#"{"oobCode":"\#(link)","email":"l@x.io","idToken":"garbage"}"#))
        }
        let signedIn = try await auth.signInWithEmailLink(body(#"{"oobCode":"\#(link)","email":"l@x.io"}"#))
        #expect(signedIn["isNewUser"] == .bool(true))
        await #expect(throws: AuthError("INVALID_OOB_CODE")) {
            try await auth.signInWithEmailLink(body(#"{"oobCode":"\#(link)","email":"l@x.io"}"#))
        }
        // So can an SMS code.
        let (session, code) = try await smsCode(auth, "+15550004444")
        await #expect(throws: AuthError.self) {
            try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(code)","idToken":"garbage"}"#))
        }
        _ = try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(code)"}"#))
        await #expect(throws: AuthError("INVALID_SESSION_INFO")) {
            try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(code)"}"#))
        }
    }

    @Test("signUp with an idToken that replaces a password ends earlier sessions; linking an anonymous account does not")
    func signUpOverCredentialsRevokes() async throws {
        let clock = TestClock()
        let auth = service(clock: clock)
        let a = try await auth.signUp(body(#"{"email":"old@x.io","password":"secret1"}"#), privileged: false)
        clock.advance(seconds: 2)
        let replaced = try await auth.signUp(
            body(#"{"idToken":"\#(try string(a, "idToken"))","email":"new@x.io","password":"other12"}"#), privileged: false)
        await #expect(throws: AuthError("TOKEN_EXPIRED")) {
            try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(a, "refreshToken")))
        }
        _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(replaced, "refreshToken")))

        let anonymous = try await auth.signUp(body("{}"), privileged: false)
        clock.advance(seconds: 2)
        _ = try await auth.signUp(
            body(#"{"idToken":"\#(try string(anonymous, "idToken"))","email":"kept@x.io","password":"secret1"}"#), privileged: false)
        let refreshed = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: try string(anonymous, "refreshToken")))
        #expect(refreshed["user_id"] == anonymous["localId"])
    }

    @Test("with email privacy, password resets and createAuthUri do not tell whether an address is registered")
    func emailPrivacyCoversResetsAndAuthURIs() async throws {
        let sender = OutboxSender()
        let auth = service(emailPrivacy: true, sender: sender)
        _ = try await auth.signUp(body(#"{"email":"known@x.io","password":"secret1"}"#), privileged: false)
        let unknown = try await auth.sendOobCode(
            body(#"{"requestType":"PASSWORD_RESET","email":"nobody@x.io"}"#), privileged: false, linkBase: "http://h")
        #expect(unknown["kind"] == .string("identitytoolkit#GetOobConfirmationCodeResponse"))
        #expect(unknown["email"] == .string("nobody@x.io"))
        #expect(sender.sent.isEmpty, "nothing is mailed to an unknown address")
        for identifier in ["known@x.io", "nobody@x.io"] {
            let answer = try await auth.createAuthUri(body(#"{"identifier":"\#(identifier)","continueUri":"http://localhost"}"#))
            guard case .object(let members) = answer.wire else { Issue.record("not an object: \(answer)"); continue }
            #expect(members.map(\.key).sorted() == ["kind", "sessionId"])
        }
    }

    @Test("an email change request checks the caller before saying the new address is taken")
    func changeEmailChecksTheCallerFirst() async throws {
        let auth = service()
        _ = try await auth.signUp(body(#"{"email":"taken@x.io","password":"secret1"}"#), privileged: false)
        await #expect(throws: AuthError("INVALID_ID_TOKEN")) {
            try await auth.sendOobCode(
                body(#"{"requestType":"VERIFY_AND_CHANGE_EMAIL","idToken":"garbage","newEmail":"taken@x.io"}"#), privileged: false,
                linkBase: "http://h")
        }
    }
}
