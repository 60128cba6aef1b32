import Foundation
import HearthAuth
import HearthCore
import HearthSQLite
import HearthStore
import HearthWire
import Testing

@Suite("Auth service")
struct AuthServiceTests {
    static let key = try! SigningKey.generate()

    func service(emailPrivacy: Bool = false, store: any AccountStore = MemoryAccountStore()) -> AuthService {
        AuthService(projectID: "p1", store: store, key: Self.key, hasher: PasswordHasher(rounds: 1 << 4), options: .init(emailPrivacy: emailPrivacy))
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func code(of error: any Error) -> String? { (error as? AuthError)?.code }

    @Test func passwordHashesVerifyAndUseFreshSalts() async throws {
        let hasher = PasswordHasher(rounds: 1 << 10)
        let a = try await hasher.hash("correct horse")
        let b = try await hasher.hash("correct horse")
        #expect(a.salt != b.salt)
        #expect(a.hash != b.hash)
        #expect(a.cost == 1 << 10)
        #expect(await hasher.verify("correct horse", hash: a.hash, salt: a.salt, cost: a.cost))
        #expect(!(await hasher.verify("correct horsE", hash: a.hash, salt: a.salt, cost: a.cost)))
        #expect(!(await hasher.verify("correct horse", hash: "not base64!", salt: a.salt, cost: a.cost)))
        #expect(PasswordHasher().rounds == 1 << 14)
    }

    @Test func eachHashIsCheckedWithTheCostItWasMadeWith() async throws {
        let old = PasswordHasher(rounds: 1 << 6)
        let new = PasswordHasher(rounds: 1 << 8)
        let made = try await old.hash("pa55word")
        // A server whose cost changed still checks the old hash, with the old cost, and asks for a new one.
        #expect(await new.verify("pa55word", hash: made.hash, salt: made.salt, cost: made.cost))
        #expect(!(await new.verify("pa55word", hash: made.hash, salt: made.salt, cost: new.rounds)))
        #expect(new.needsRehash(cost: made.cost))
        #expect(!old.needsRehash(cost: made.cost))
        // Hashes stored before costs were recorded were all made with 2^14.
        let legacy = try await PasswordHasher().hash("pa55word")
        #expect(await new.verify("pa55word", hash: legacy.hash, salt: legacy.salt, cost: nil))
        #expect(new.needsRehash(cost: nil))
        #expect(!PasswordHasher().needsRehash(cost: nil))
        // A cost no hash here could have is refused before anything is derived (2^19 would take 512 MiB).
        for cost in [0, 1, 3, (1 << 6) + 1, 1 << 19, 1 << 40, -(1 << 6)] {
            #expect(!PasswordHasher.isUsableCost(cost), "cost \(cost)")
            #expect(!(await old.verify("pa55word", hash: made.hash, salt: made.salt, cost: cost)), "cost \(cost)")
        }
        for cost in [2, 1 << 4, 1 << 14, 1 << 18] { #expect(PasswordHasher.isUsableCost(cost), "cost \(cost)") }
    }

    @Test(arguments: AccountBacking.allCases)
    func signInMovesAPasswordToTheServersNewCost(_ backing: AccountBacking) async throws {
        let store = try await backing.store(at: try AccountBacking.temporaryFolder())
        func service(cost: Int) -> AuthService {
            AuthService(projectID: "p1", store: store, key: Self.key, hasher: PasswordHasher(rounds: cost))
        }
        let signUp = try await service(cost: 1 << 5).signUp(body(#"{"email":"c@x.io","password":"secret1"}"#), privileged: false)
        let uid = try #require(signUp["localId"]?.stringValue)
        func stored() async throws -> UserRecord? {
            try await store.transaction { tx in try tx.account(uid: uid) }.flatMap { try? JSONDecoder().decode(UserRecord.self, from: $0.record) }
        }
        let before = try #require(try await stored())
        #expect(before.passwordCost == 1 << 5)

        let raised = service(cost: 1 << 7)
        let signIn = #"{"email":"c@x.io","password":"secret1"}"#
        await #expect(throws: AuthError.self) { try await raised.signInWithPassword(body(#"{"email":"c@x.io","password":"secret2"}"#)) }
        #expect(try await stored()?.passwordHash == before.passwordHash, "a wrong password changes nothing")
        _ = try await raised.signInWithPassword(body(signIn))
        let after = try #require(try await stored())
        #expect(after.passwordCost == 1 << 7)
        #expect(after.passwordHash != before.passwordHash)
        #expect(after.passwordUpdatedAt == before.passwordUpdatedAt, "the password did not change, only its hash")
        _ = try await raised.signInWithPassword(body(signIn))
        #expect(try await stored()?.passwordHash == after.passwordHash, "a hash at the current cost stays")
        // And back down, for a server that lowered it.
        _ = try await service(cost: 1 << 5).signInWithPassword(body(signIn))
        #expect(try await stored()?.passwordCost == 1 << 5)
    }

    @Test func tokensVerifyOnlyWithTheirKeyAndProject() async throws {
        let auth = service()
        let result = try await auth.signUp(body(#"{"email":"t@x.io","password":"secret1","displayName":"T"}"#), privileged: false)
        let token = try #require(result["idToken"]?.stringValue)
        let claims = try #require(auth.verifiedClaims(token))
        #expect(claims["iss"] == .string("https://securetoken.google.com/p1"))
        #expect(claims["aud"] == .string("p1"))
        #expect(claims["name"] == .string("T"))
        #expect(claims["firebase"]?["identities"]?["email"] == .array([.string("t@x.io")]))
        // Another project, another key, a tampered payload, an expired token.
        let other = AuthService(projectID: "p2", store: MemoryAccountStore(), key: Self.key)
        #expect(other.verifiedClaims(token) == nil)
        let otherKey = AuthService(projectID: "p1", store: MemoryAccountStore(), key: try SigningKey.generate())
        #expect(otherKey.verifiedClaims(token) == nil)
        let parts = token.split(separator: ".")
        var payload = try JSONValue.parse(Base64URL.decode(parts[1])!)
        if case .object(var m) = payload {
            m.removeAll { $0.key == "sub" }
            m.append(JSONMember("sub", .string("someone-else")))
            payload = .object(m)
        }
        let tampered = parts[0] + "." + Base64URL.encode(payload.jsonBytes) + "." + parts[2]
        #expect(auth.verifiedClaims(String(tampered)) == nil)
        #expect(auth.verifiedClaims(token, now: (Int64(Date().timeIntervalSince1970) + 3601) * 1000) == nil)
    }

    @Test func failedSignInsAreLimitedPerEmailAndPerAddress() async throws {
        let auth = service()
        _ = try await auth.signUp(body(#"{"email":"l@x.io","password":"secret1"}"#), privileged: false)
        for _ in 0..<10 {
            await #expect(throws: AuthError("INVALID_PASSWORD")) {
                try await auth.signInWithPassword(body(#"{"email":"l@x.io","password":"wrong12"}"#))
            }
        }
        await #expect(throws: AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")) {
            try await auth.signInWithPassword(body(#"{"email":"l@x.io","password":"secret1"}"#))
        }
        // One address guessing many emails.
        for i in 0..<100 {
            await #expect(throws: AuthError("EMAIL_NOT_FOUND")) {
                try await auth.signInWithPassword(body(#"{"email":"n\#(i)@x.io","password":"secret1"}"#), clientAddress: "10.0.0.9")
            }
        }
        await #expect(throws: AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")) {
            try await auth.signInWithPassword(body(#"{"email":"fresh@x.io","password":"secret1"}"#), clientAddress: "10.0.0.9")
        }
        await #expect(throws: AuthError("EMAIL_NOT_FOUND")) {
            try await auth.signInWithPassword(body(#"{"email":"fresh@x.io","password":"secret1"}"#), clientAddress: "10.0.0.10")
        }
    }

    @Test func emailPrivacyHidesWhetherAnEmailExists() async throws {
        let auth = service(emailPrivacy: true)
        _ = try await auth.signUp(body(#"{"email":"e@x.io","password":"secret1"}"#), privileged: false)
        for attempt in [#"{"email":"e@x.io","password":"wrong12"}"#, #"{"email":"nobody@x.io","password":"secret1"}"#] {
            await #expect(throws: AuthError("INVALID_LOGIN_CREDENTIALS")) { try await auth.signInWithPassword(body(attempt)) }
        }
    }

    @Test func createAuthUriListsLinkedIdentityProviders() async throws {
        let auth = service()
        let created = try await auth.signUp(body(#"{"email":"g@x.io","password":"secret1"}"#), privileged: false)
        let uid = try #require(created["localId"]?.stringValue)
        _ = try await auth.update(
            body(#"{"localId":"\#(uid)","linkProviderUserInfo":{"providerId":"google.com","rawId":"g-1","email":"g@x.io"}}"#), privileged: true)
        let answer = try await auth.createAuthUri(body(#"{"identifier":"g@x.io","continueUri":"http://localhost"}"#))
        #expect(answer["registered"] == .bool(true))
        #expect(answer["allProviders"] == .array([.string("password"), .string("google.com")]))
        #expect(answer["signinMethods"] == .array([.string("password"), .string("google.com")]))
        let unknown = try await auth.createAuthUri(body(#"{"identifier":"none@x.io","continueUri":"http://localhost"}"#))
        #expect(unknown["registered"] == .bool(false))
        #expect(unknown["signinMethods"] == .array([]))
    }

    @Test func accountsPersistInSQLite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-\(UUID().uuidString).sqlite").path
        let uid: String
        do {
            let auth = service(store: try SQLiteAccountStore(path: path))
            let result = try await auth.signUp(body(#"{"email":"s@x.io","password":"secret1"}"#), privileged: false)
            uid = try #require(result["localId"]?.stringValue)
        }
        let reopened = service(store: try SQLiteAccountStore(path: path))
        let signedIn = try await reopened.signInWithPassword(body(#"{"email":"S@x.io","password":"secret1"}"#))
        #expect(signedIn["localId"] == .string(uid))
        let text = try String(contentsOfFile: path, encoding: .isoLatin1)
        #expect(!text.contains("secret1"), "the password must never be stored")
    }

    @Test func signingKeyIsCreatedOnceWithOwnerOnlyPermissions() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-key-\(UUID().uuidString).pem").path
        let first = try SigningKey.loadOrCreate(at: path)
        let second = try SigningKey.loadOrCreate(at: path)
        #expect(first.kid == second.kid)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    // The published example of Firebase's scrypt parameters and one exported user.
    static let firebaseParameters = FirebaseScryptParameters(
        signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        saltSeparator: "Bw==", rounds: 8, memoryCost: 14)
    static let exportedHash = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
    static let exportedSalt = "42xEC+ixf3L2lw=="

    @Test func firebaseScryptHashesVerify() async {
        #expect(await Self.firebaseParameters.verify("user1password", hash: Self.exportedHash, salt: Self.exportedSalt))
        #expect(!(await Self.firebaseParameters.verify("user1passworD", hash: Self.exportedHash, salt: Self.exportedSalt)))
    }

    @Test(arguments: AccountBacking.allCases)
    func importedFirebaseUsersSignInAndMoveToHearthHashes(_ backing: AccountBacking) async throws {
        let store = try await backing.store(at: try AccountBacking.temporaryFolder())
        let auth = service(store: store)
        func stored() async throws -> UserRecord {
            let row = try await store.transaction { try $0.account(uid: "fb1") }
            return try JSONDecoder().decode(UserRecord.self, from: try #require(row).record)
        }
        let p = Self.firebaseParameters
        let request = """
            {"hashAlgorithm":"SCRYPT","signerKey":"\(p.signerKey)","saltSeparator":"\(p.saltSeparator)","rounds":8,"memoryCost":14,
             "users":[{"localId":"fb1","email":"user1@example.com","passwordHash":"\(Self.exportedHash)","salt":"\(Self.exportedSalt)"}]}
            """
        let result = try await auth.batchCreate(body(request))
        #expect(result["error"] == nil)
        #expect(try await stored().firebaseScrypt == p)
        let first = try await auth.signInWithPassword(body(#"{"email":"user1@example.com","password":"user1password"}"#))
        #expect(first["localId"] == .string("fb1"))
        #expect(try await stored().firebaseScrypt == nil)
        #expect(try await stored().passwordHash != Self.exportedHash)
        // The second sign-in checks Hearth's own hash (the Firebase one was replaced).
        let second = try await auth.signInWithPassword(body(#"{"email":"user1@example.com","password":"user1password"}"#))
        #expect(second["localId"] == .string("fb1"))
        await #expect(throws: AuthError("INVALID_PASSWORD")) {
            try await auth.signInWithPassword(body(#"{"email":"user1@example.com","password":"wrong-password"}"#))
        }
    }

    @Test func linksAndCodesGoThroughTheSender() async throws {
        let outbox = OutboxSender()
        let auth = AuthService(
            projectID: "p1", store: MemoryAccountStore(), keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4),
            sender: outbox)
        _ = try await auth.signUp(body(#"{"email":"m@x.io","password":"secret1"}"#), privileged: false)
        _ = try await auth.sendOobCode(body(#"{"requestType":"PASSWORD_RESET","email":"m@x.io"}"#), privileged: false, linkBase: "http://h")
        let sent = try await auth.sendVerificationCode(body(#"{"phoneNumber":"+15550002222"}"#))
        // An admin-generated link is returned, not mailed.
        _ = try await auth.sendOobCode(body(#"{"requestType":"PASSWORD_RESET","email":"m@x.io","returnOobLink":true}"#), privileged: true, linkBase: "http://h")
        let messages = outbox.sent
        #expect(messages.count == 2)
        #expect(messages[0].channel == .email && messages[0].to == "m@x.io" && messages[0].purpose == "PASSWORD_RESET")
        #expect(messages[0].body.contains("http://h/emulator/action?mode=resetPassword"))
        let code = try #require(try await auth.pendingVerificationCodes()["verificationCodes"].flatMap { v -> String? in
            if case .array(let items) = v { return items.first?["code"]?.stringValue }
            return nil
        })
        #expect(messages[1].channel == .sms && messages[1].to == "+15550002222" && messages[1].body.hasSuffix(code))
        #expect(sent["sessionInfo"] != nil)
    }

    @Test func oneTimeCodesSurviveARestartAndAreStoredAsDigests() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-codes-\(UUID().uuidString).sqlite").path
        let outbox = OutboxSender()
        do {
            let auth = AuthService(
                projectID: "p1", store: try SQLiteAccountStore(path: path), keys: KeyRing(current: Self.key),
                hasher: PasswordHasher(rounds: 1 << 4), options: .init(readableCodes: false), sender: outbox)
            _ = try await auth.signUp(body(#"{"email":"c@x.io","password":"secret1"}"#), privileged: false)
            _ = try await auth.sendOobCode(body(#"{"requestType":"PASSWORD_RESET","email":"c@x.io"}"#), privileged: false, linkBase: "http://h")
            #expect(try await auth.pendingOobCodes()["oobCodes"] == .array([]), "production keeps no readable codes")
        }
        let link = try #require(outbox.sent.first?.body)
        let code = String(try #require(link.split(separator: "oobCode=").last?.split(separator: "&").first))
        let file = try String(contentsOfFile: path, encoding: .isoLatin1)
        #expect(!file.contains(code), "the code itself is never stored")
        // A new process on the same data folder honours the emailed link.
        let restarted = AuthService(
            projectID: "p1", store: try SQLiteAccountStore(path: path), keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4))
        _ = try await restarted.resetPassword(body(#"{"oobCode":"\#(code)","newPassword":"another1"}"#))
        _ = try await restarted.signInWithPassword(body(#"{"email":"c@x.io","password":"another1"}"#))
        await #expect(throws: AuthError("INVALID_OOB_CODE")) {
            try await restarted.resetPassword(body(#"{"oobCode":"\#(code)","newPassword":"third12"}"#))
        }
    }

    @Test("accounts, refresh tokens and one-time codes outlive the store object", arguments: AccountBacking.durable)
    func accountsTokensAndCodesOutliveTheStoreObject(_ backing: AccountBacking) async throws {
        let folder = try AccountBacking.temporaryFolder()
        let outbox = OutboxSender()
        let refreshToken: String
        let signedUp: String
        do {
            let auth = AuthService(
                projectID: "p1", store: try await backing.store(at: folder), keys: KeyRing(current: Self.key),
                hasher: PasswordHasher(rounds: 1 << 4), options: .init(readableCodes: false), sender: outbox)
            let signUp = try await auth.signUp(body(#"{"email":"c@x.io","password":"secret1"}"#), privileged: false)
            refreshToken = try #require(signUp["refreshToken"]?.stringValue)
            signedUp = try #require(signUp["localId"]?.stringValue)
            _ = try await auth.sendOobCode(body(#"{"requestType":"PASSWORD_RESET","email":"c@x.io"}"#), privileged: false, linkBase: "http://h")
        }
        let link = try #require(outbox.sent.first?.body)
        let code = String(try #require(link.split(separator: "oobCode=").last?.split(separator: "&").first))
        let store = try await backing.store(at: folder)
        let stored = try await store.read { tx in try tx.codes() }
        #expect(stored.count == 1)
        #expect(!stored.contains { String(decoding: $0.data, as: UTF8.self).contains(code) }, "the code itself is never stored")
        let restarted = AuthService(
            projectID: "p1", store: store, keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4))
        let refreshed = try await restarted.refresh(.init(grantType: "refresh_token", refreshToken: refreshToken))
        #expect(refreshed.userID == signedUp)
        _ = try await restarted.resetPassword(body(#"{"oobCode":"\#(code)","newPassword":"another1"}"#))
        _ = try await restarted.signInWithPassword(body(#"{"email":"C@x.io","password":"another1"}"#))
        await #expect(throws: AuthError("INVALID_OOB_CODE")) {
            try await restarted.resetPassword(body(#"{"oobCode":"\#(code)","newPassword":"third12"}"#))
        }
    }

    @Test func smsSessionsEndAfterFiveWrongCodes() async throws {
        let outbox = OutboxSender()
        let auth = AuthService(
            projectID: "p1", store: MemoryAccountStore(), keys: KeyRing(current: Self.key), hasher: PasswordHasher(rounds: 1 << 4),
            options: .init(readableCodes: false), sender: outbox)
        let session = try #require(try await auth.sendVerificationCode(body(#"{"phoneNumber":"+15550003333"}"#))["sessionInfo"]?.stringValue)
        let right = String(try #require(outbox.sent.last?.body.suffix(6)))
        let wrong = right == "000000" ? "000001" : "000000"
        for _ in 0..<5 {
            await #expect(throws: AuthError("INVALID_CODE")) {
                try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(wrong)"}"#))
            }
        }
        // Even the right code no longer works: guessing six digits is capped at five tries.
        await #expect(throws: AuthError("INVALID_SESSION_INFO")) {
            try await auth.signInWithPhoneNumber(body(#"{"sessionInfo":"\#(session)","code":"\#(right)"}"#))
        }
    }
}

