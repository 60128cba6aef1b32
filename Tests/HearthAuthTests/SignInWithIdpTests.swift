import Crypto
import Foundation
import HearthAuth
import HearthCore
import HearthWire
import HearthStore
import Synchronization
import Testing

/// `accounts:signInWithIdp` with Sign in with Apple / Google ID tokens: which tokens pass, which account they reach,
/// and linking. The "provider" here is a key made for the test, published through a stub key source.
@Suite("Sign-in with an identity provider")
struct SignInWithIdpTests {
    static let serverKey = try! SigningKey.generate()
    /// Plays Apple's key; `otherKey` has the same role for forged tokens.
    static let appleKey = try! SigningKey.generate()
    static let otherKey = try! SigningKey.generate()
    static let bundleID = "com.example.shake"
    static let googleClient = "123-abc.apps.googleusercontent.com"
    static let now: Int64 = 1_800_000_000_000

    /// Answers `keys` for the provider's URL, and counts how often each kind of fetch was asked for.
    final class StubKeys: ProviderKeySource {
        let cached: JSONValue
        let fresh: JSONValue
        let fetches = Mutex<[Bool]>([])
        init(cached: JSONValue, fresh: JSONValue? = nil) {
            self.cached = cached
            self.fresh = fresh ?? cached
        }
        func keySet(at url: String, fresh wantsFresh: Bool) async throws -> JSONValue {
            fetches.withLock { $0.append(wantsFresh) }
            return wantsFresh ? fresh : cached
        }
        /// Whether each fetch so far asked for a fresh set.
        var asked: [Bool] { fetches.withLock { $0 } }
    }

    func service(
        keys: StubKeys = StubKeys(cached: appleKey.jwks), options: AuthService.Options? = nil, store: MemoryAccountStore = MemoryAccountStore(),
        clock: @escaping @Sendable () -> Int64 = { Self.now }
    ) -> AuthService {
        let providers = IdentityProviders(providers: [.apple(clientIDs: [Self.bundleID]), .google(clientIDs: [Self.googleClient])], keys: keys)
        return AuthService(
            projectID: "p1", store: store, key: Self.serverKey, hasher: PasswordHasher(rounds: 1 << 4),
            options: options ?? .production(authorizedDomains: ["localhost"], identityProviders: providers), clock: clock)
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    static func sha256Hex(_ s: String) -> String { SHA256.hash(data: Array(s.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// An ID token as Apple makes it, with `changes` on top of the defaults (a `.null` removes a claim).
    static func appleToken(signedBy key: SigningKey = appleKey, _ changes: [String: JSONValue] = [:]) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string("https://appleid.apple.com"), "aud": .string(bundleID), "sub": .string("001234.apple"),
            "email": .string("Ann@privaterelay.appleid.com"), "email_verified": .string("true"),
            "iat": .int(now / 1000 - 10), "exp": .int(now / 1000 + 600), "nonce": .string(sha256Hex("raw-nonce")),
        ]
        for (key, value) in changes { claims[key] = value == .null ? nil : value }
        return try key.sign(.object(claims.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value) }))
    }

    /// A token Apple's key signed, its payload then swapped for one naming another user: right key id, wrong signature.
    static func tampered() throws -> String {
        let signed = try appleToken().split(separator: ".")
        let other = try appleToken(["sub": .string("someone-else")]).split(separator: ".")
        return [signed[0], other[1], signed[2]].joined(separator: ".")
    }

    func request(
        _ token: String, nonce: String? = "raw-nonce", provider: String = "apple.com", idToken: String? = nil, returnIdpCredential: Bool = false
    ) -> JSONValue {
        var post = "providerId=\(provider)&id_token=\(token)"
        if let nonce { post += "&nonce=\(nonce)" }
        var m = [JSONMember("requestUri", .string("http://localhost")), JSONMember("postBody", .string(post)), JSONMember("returnSecureToken", .bool(true))]
        if let idToken { m.append(JSONMember("idToken", .string(idToken))) }
        if returnIdpCredential { m.append(JSONMember("returnIdpCredential", .bool(true))) }
        return .object(m)
    }

    /// The error code `signInWithIdp` refuses `request` with, or nil if it signs in.
    func refusal(_ auth: AuthService, _ request: JSONValue) async -> String? {
        do {
            _ = try await auth.signInWithIdp(request)
            return nil
        } catch {
            return (error as? AuthError)?.code ?? "\(error)"
        }
    }

    func accountCount(_ auth: AuthService) async throws -> String? {
        try await auth.query(body(#"{"returnUserInfo":false}"#))["recordsCount"]?.stringValue
    }

    @Test func aFirstAppleSignInMakesTheUserAndTheNextFindsThem() async throws {
        let auth = service()
        let first = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(first["kind"] == .string("identitytoolkit#VerifyAssertionResponse"))
        #expect(first["isNewUser"] == .bool(true))
        #expect(first["providerId"] == .string("apple.com"))
        #expect(first["federatedId"] == .string("001234.apple"))
        #expect(first["email"] == .string("ann@privaterelay.appleid.com"))
        #expect(first["emailVerified"] == .bool(true), "Apple's email_verified is the text \"true\"")
        let uid = try #require(first["localId"]?.stringValue)
        let idToken = try #require(first["idToken"]?.stringValue)
        let claims = try #require(auth.verifiedClaims(idToken, now: Self.now))
        #expect(claims["firebase"]?["sign_in_provider"] == .string("apple.com"))
        #expect(claims["firebase"]?["identities"]?["apple.com"] == .array([.string("001234.apple")]))
        #expect(first["refreshToken"]?.stringValue?.isEmpty == false)

        let again = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(again["localId"] == .string(uid))
        #expect(again["isNewUser"] == .bool(false))
        #expect(try await accountCount(auth) == "1")
    }

    @Test func tokensThatFailACheckAreRefusedAndMakeNoAccount() async throws {
        let auth = service()
        let cases: [(String, JSONValue, String)] = [
            ("another app's token", try request(Self.appleToken(["aud": .string("com.other.app")])), "INVALID_IDP_RESPONSE"),
            ("another issuer", try request(Self.appleToken(["iss": .string("https://evil.example")])), "INVALID_IDP_RESPONSE"),
            ("expired", try request(Self.appleToken(["exp": .int(Self.now / 1000 - 120)])), "INVALID_IDP_RESPONSE"),
            ("issued in the future", try request(Self.appleToken(["iat": .int(Self.now / 1000 + 3600)])), "INVALID_IDP_RESPONSE"),
            ("signed by a key that is not Apple's", try request(Self.appleToken(signedBy: Self.otherKey)), "INVALID_IDP_RESPONSE"),
            ("Apple's signature over another payload", try request(Self.tampered()), "INVALID_IDP_RESPONSE"),
            ("no subject", try request(Self.appleToken(["sub": .null])), "INVALID_IDP_RESPONSE"),
            ("not a JWT", request("not-a-token"), "INVALID_IDP_RESPONSE"),
            ("a provider this server has not enabled", try request(Self.appleToken(), provider: "facebook.com"), "OPERATION_NOT_ALLOWED"),
            ("the nonce left out", try request(Self.appleToken(), nonce: nil), "MISSING_OR_INVALID_NONCE"),
            ("the token's own nonce claim sent back", try request(Self.appleToken(), nonce: Self.sha256Hex("raw-nonce")), "MISSING_OR_INVALID_NONCE"),
            ("an Apple token sent as Google's", try request(Self.appleToken(), provider: "google.com"), "INVALID_IDP_RESPONSE"),
            ("another nonce", try request(Self.appleToken(), nonce: "other"), "MISSING_OR_INVALID_NONCE"),
            ("a nonce for a token without one", try request(Self.appleToken(["nonce": .null]), nonce: "raw-nonce"), "MISSING_OR_INVALID_NONCE"),
            ("a password provider", try request(Self.appleToken(), provider: "password"), "INVALID_PROVIDER_ID"),
            ("no requestUri", body(#"{"postBody":"providerId=apple.com&id_token=x"}"#), "MISSING_REQUEST_URI"),
            ("an access token only", body(#"{"requestUri":"http://localhost","postBody":"providerId=apple.com&access_token=x"}"#), "INVALID_IDP_RESPONSE"),
            ("a mistyped field", body(#"{"requestUri":"http://localhost","postBody":5}"#), "INVALID_ARGUMENT"),
        ]
        for (what, request, expected) in cases {
            let got = await refusal(auth, request)
            #expect(got == expected, "\(what)")
        }
        #expect(try await accountCount(auth) == "0")
    }

    @Test func aRotatedKeyIsFetchedOnceFreshAndAnUnknownOneIsRefused() async throws {
        let rotated = StubKeys(cached: Self.otherKey.jwks, fresh: Self.appleKey.jwks)
        let auth = service(keys: rotated)
        _ = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(rotated.asked == [false, true])

        let stale = StubKeys(cached: Self.otherKey.jwks)
        let refusing = service(keys: stale)
        #expect(await refusal(refusing, request(try Self.appleToken())) == "INVALID_IDP_RESPONSE")
        #expect(stale.asked == [false, true])
    }

    @Test func anAnonymousUserLinksAppleAndKeepsTheirUid() async throws {
        let auth = service()
        let trial = try await auth.signUp(body("{}"), privileged: false)
        let uid = try #require(trial["localId"]?.stringValue)
        let trialToken = try #require(trial["idToken"]?.stringValue)
        let linked = try await auth.signInWithIdp(request(try Self.appleToken(), idToken: trialToken))
        #expect(linked["localId"] == .string(uid))
        #expect(linked["isNewUser"] == .bool(false))
        let found = try await auth.lookup(body(#"{"localId":["\#(uid)"]}"#), privileged: true)
        #expect(found["users"]?[0]?["email"] == .string("ann@privaterelay.appleid.com"), "the anonymous user took the free email")
        // Signing in with Apple later reaches the same user: the trial's data stays theirs.
        #expect(try await auth.signInWithIdp(request(try Self.appleToken()))["localId"] == .string(uid))

        let other = try #require(try await auth.signUp(body("{}"), privileged: false)["idToken"]?.stringValue)
        #expect(await refusal(auth, request(try Self.appleToken(), idToken: other)) == "FEDERATED_USER_ID_ALREADY_LINKED")
    }

    @Test func anEmailAnotherAccountHasNeedsConfirmationAndNoTokens() async throws {
        let auth = service()
        let existing = try await auth.signUp(body(#"{"email":"ann@privaterelay.appleid.com","password":"secret1"}"#), privileged: false)
        let existingUID = try #require(existing["localId"]?.stringValue)
        _ = try await auth.update(body(#"{"localId":"\#(existingUID)","emailVerified":true}"#), privileged: true)
        let answer = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(answer["needConfirmation"] == .bool(true))
        #expect(answer["localId"] == existing["localId"])
        #expect(answer["oauthIdToken"]?.stringValue?.isEmpty == false, "the client rebuilds the credential to link it later")
        #expect(answer["idToken"] == nil && answer["refreshToken"] == nil)
        #expect(try await accountCount(auth) == "1")
    }

    // Issue 30 §3: someone signed up with Ann's address and a password of his own, and never proved the address.
    // Apple says it is Ann's: she gets the account, and the squatter's password and sessions stop working.
    @Test func aVerifiedProviderEmailClaimsAnAccountWhoseEmailNobodyVerified() async throws {
        let time = Mutex(Self.now - 60_000)
        let auth = service(clock: { time.withLock { $0 } })
        let squatter = try await auth.signUp(body(#"{"email":"ann@privaterelay.appleid.com","password":"secret1"}"#), privileged: false)
        let uid = try #require(squatter["localId"]?.stringValue)
        let squatterRefresh = try #require(squatter["refreshToken"]?.stringValue)
        time.withLock { $0 = Self.now }
        let answer = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(answer["needConfirmation"] == nil)
        #expect(answer["localId"] == .string(uid), "the address's account, not a second one")
        #expect(answer["idToken"]?.stringValue?.isEmpty == false)
        #expect(try await accountCount(auth) == "1")
        let found = try await auth.lookup(body(#"{"localId":["\#(uid)"]}"#), privileged: true)
        #expect(found["users"]?[0]?["emailVerified"] == .bool(true))
        #expect(found["users"]?[0]?["passwordHash"] == nil)
        var passwordError: String?
        do { _ = try await auth.signInWithPassword(body(#"{"email":"ann@privaterelay.appleid.com","password":"secret1"}"#)) } catch {
            passwordError = (error as? AuthError)?.code
        }
        #expect(passwordError != nil, "the squatter's password is gone")
        var refreshError: String?
        do { _ = try await auth.refresh(.init(grantType: "refresh_token", refreshToken: squatterRefresh)) } catch {
            refreshError = (error as? AuthError)?.code
        }
        #expect(refreshError == "TOKEN_EXPIRED", "the squatter's session has ended")
    }

    @Test func aDisabledUnverifiedAccountIsNotClaimed() async throws {
        let auth = service()
        let squatter = try await auth.signUp(body(#"{"email":"ann@privaterelay.appleid.com","password":"secret1"}"#), privileged: false)
        let uid = try #require(squatter["localId"]?.stringValue)
        _ = try await auth.update(body(#"{"localId":"\#(uid)","disableUser":true}"#), privileged: true)
        #expect(await refusal(auth, request(try Self.appleToken())) == "USER_DISABLED")
    }

    @Test func aDisabledUserIsRefused() async throws {
        let auth = service()
        let uid = try #require(try await auth.signInWithIdp(request(try Self.appleToken()))["localId"]?.stringValue)
        _ = try await auth.update(body(#"{"localId":"\#(uid)","disableUser":true}"#), privileged: true)
        #expect(await refusal(auth, request(try Self.appleToken())) == "USER_DISABLED")
    }

    @Test func theEmulatorReadsTokensUnchecked() async throws {
        #expect(await refusal(service(options: AuthService.Options()), request(#"{"sub":"x"}"#, nonce: nil)) == "OPERATION_NOT_ALLOWED",
            "the library's default enables no provider")
        let auth = service(options: AuthService.Options(identityProviders: .emulator))
        let unsigned = #"{"sub":"fb-7","email":"fb@x.io","email_verified":true,"name":"Fay"}"#
        let answer = try await auth.signInWithIdp(request(unsigned, nonce: nil, provider: "facebook.com"))
        #expect(answer["isNewUser"] == .bool(true))
        #expect(answer["displayName"] == .string("Fay"))
        #expect(answer["federatedId"] == .string("fb-7"))
        let forged = try Self.appleToken(signedBy: Self.otherKey, ["aud": .string("any")])
        #expect(try await auth.signInWithIdp(request(forged))["isNewUser"] == .bool(true))
    }

    @Test func anUnverifiedEmailIsNotTakenAndReachesNoAccount() async throws {
        let auth = service()
        _ = try await auth.signUp(body(#"{"email":"victim@x.io","password":"secret1"}"#), privileged: false)
        let unverified = try Self.appleToken(["email": .string("victim@x.io"), "email_verified": .string("false")])
        let answer = try await auth.signInWithIdp(request(unverified))
        #expect(answer["needConfirmation"] == nil)
        #expect(answer["isNewUser"] == .bool(true))
        let uid = try #require(answer["localId"]?.stringValue)
        let user = try await auth.lookup(body(#"{"localId":["\#(uid)"]}"#), privileged: true)
        #expect(user["users"]?[0]?["email"] == nil, "the address stays its owner's to claim")
        #expect(user["users"]?[0]?["providerUserInfo"]?[0]?["email"] == .string("victim@x.io"), "the provider entry keeps what the token said")
    }

    @Test func aLinkedUserCannotTakeAnotherAccountsVerifiedEmail() async throws {
        let auth = service()
        _ = try await auth.signUp(body(#"{"email":"ann@privaterelay.appleid.com","password":"secret1"}"#), privileged: false)
        let trial = try #require(try await auth.signUp(body("{}"), privileged: false)["idToken"]?.stringValue)
        #expect(await refusal(auth, request(try Self.appleToken(), idToken: trial)) == "EMAIL_EXISTS")
    }

    @Test func aRefusedLinkAskedForTheCredentialIsAnsweredWithItAndNoSession() async throws {
        let auth = service()
        let holder = try await auth.signInWithIdp(request(try Self.appleToken()))
        let trial = try await auth.signUp(body("{}"), privileged: false)
        let trialToken = try #require(trial["idToken"]?.stringValue)
        let answer = try await auth.signInWithIdp(request(try Self.appleToken(), idToken: trialToken, returnIdpCredential: true))
        #expect(answer["errorMessage"] == .string("FEDERATED_USER_ID_ALREADY_LINKED"))
        #expect(answer["oauthIdToken"] == .string(try Self.appleToken()), "the app can sign in as the holder with it")
        #expect(answer["providerId"] == .string("apple.com"))
        #expect(answer["email"] == .string("ann@privaterelay.appleid.com"))
        #expect(answer["localId"] == nil && answer["idToken"] == nil && answer["refreshToken"] == nil)
        let trialUser = try await auth.lookup(body(#"{"localId":["\#(trial["localId"]?.stringValue ?? "")"]}"#), privileged: true)
        #expect(trialUser["users"]?[0]?["providerUserInfo"] == .array([]), "nothing was linked")
        #expect(try await auth.signInWithIdp(request(try Self.appleToken()))["localId"] == holder["localId"])

        // Another account's verified email: EMAIL_EXISTS, the same way.
        let other = try Self.appleToken(["sub": .string("other.apple"), "email": .string("bob@x.io")])
        _ = try await auth.signUp(body(#"{"email":"bob@x.io","password":"secret1"}"#), privileged: false)
        let emailAnswer = try await auth.signInWithIdp(request(other, idToken: trialToken, returnIdpCredential: true))
        #expect(emailAnswer["errorMessage"] == .string("EMAIL_EXISTS"))
        #expect(emailAnswer["idToken"] == nil)

        // Without returnIdpCredential both are errors, and sign-in refusals are errors either way.
        #expect(await refusal(auth, request(other, idToken: trialToken)) == "EMAIL_EXISTS")
        let holderUID = try #require(holder["localId"]?.stringValue)
        _ = try await auth.update(body(#"{"localId":"\#(holderUID)","disableUser":true}"#), privileged: true)
        #expect(await refusal(auth, request(try Self.appleToken(), returnIdpCredential: true)) == "USER_DISABLED")
    }

    @Test func googleTokensFromEitherIssuerSpellingAndAnAudienceListPass() async throws {
        let google = StubKeys(cached: Self.appleKey.jwks)
        let auth = service(keys: google)
        for (n, issuer) in ["https://accounts.google.com", "accounts.google.com"].enumerated() {
            let token = try Self.appleToken([
                "iss": .string(issuer), "aud": .array([.string("other-client"), .string(Self.googleClient)]), "sub": .string("g-\(n)"),
                "nonce": .null, "email_verified": .bool(true), "email": .string("g\(n)@gmail.test"),
            ])
            let answer = try await auth.signInWithIdp(request(token, nonce: nil, provider: "Google.com"))
            #expect(answer["providerId"] == .string("google.com"), "provider ids are read lower-cased")
            #expect(answer["federatedId"] == .string("https://accounts.google.com/g-\(n)"))
            #expect(answer["emailVerified"] == .bool(true))
        }
        // A signed token whose expiry is as far as a number goes is read without overflowing.
        let far = try Self.appleToken(["exp": .int(Int64.max)])
        #expect(try await auth.signInWithIdp(request(far))["isNewUser"] == .bool(true))
    }

    @Test func aUserImportedFromFirebaseWithAnAppleIdentitySignsInAsTheirOldUid() async throws {
        let auth = service()
        // As `firebase auth:export` writes such a user, imported through batchCreate (what `hearth users import` sends).
        let imported = try await auth.batchCreate(body("""
            {"users":[{"localId":"firebase-uid-7","email":"ann@privaterelay.appleid.com","emailVerified":true,
            "providerUserInfo":[{"providerId":"apple.com","rawId":"001234.apple","email":"ann@privaterelay.appleid.com"}]}]}
            """))
        #expect(imported["error"] == nil)
        let answer = try await auth.signInWithIdp(request(try Self.appleToken()))
        #expect(answer["localId"] == .string("firebase-uid-7"))
        #expect(answer["isNewUser"] == .bool(false))
        #expect(answer["needConfirmation"] == nil, "the identity, not the email, finds the user")
    }
}
