import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Identity Toolkit and Secure Token over HTTP, and Hearth-signed tokens on the database.
@Suite("Auth over HTTP")
struct AuthRouterTests {
    static let key = try! SigningKey.generate()

    /// A fresh service per test; cheap scrypt so tests stay fast.
    static func service(clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) -> AuthService {
        AuthService(projectID: "demo", store: MemoryAccountStore(), key: key, hasher: PasswordHasher(rounds: 1 << 4), clock: clock)
    }

    static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    static let adminBase = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts"

    func call(_ client: any TestClientProtocol, _ path: String, _ body: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, JSONValue) {
        let (status, text, _) = try await client.send(.post, path, body, headers: headers)
        return (status, try JSONValue.parse(text))
    }

    func errorMessage(_ json: JSONValue) -> String? { json["error"]?["message"]?.stringValue }

    @Test func anonymousUserLinksEmailAndKeepsItsUID() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (s1, anon) = try await call(client, Self.v1 + "signUp?key=k", #"{"returnSecureToken":true}"#)
            #expect(s1 == .ok)
            #expect(anon["kind"] == .string("identitytoolkit#SignupNewUserResponse"))
            #expect(anon["expiresIn"] == .string("3600"))
            let uid = try #require(anon["localId"]?.stringValue)
            let idToken = try #require(anon["idToken"]?.stringValue)
            let claims = try #require(Self.key.verifiedPayload(idToken))
            #expect(claims["firebase"]?["sign_in_provider"] == .string("anonymous"))
            #expect(claims["provider_id"] == .string("anonymous"))
            #expect(claims["sub"] == .string(uid))

            let link = #"{"idToken":"\#(idToken)","email":"Ann@Example.com","password":"secret1","returnSecureToken":true}"#
            let (s2, linked) = try await call(client, Self.v1 + "signUp?key=k", link)
            #expect(s2 == .ok)
            #expect(linked["localId"] == .string(uid))
            #expect(linked["email"] == .string("ann@example.com"))
            let linkedClaims = try #require(Self.key.verifiedPayload(linked["idToken"]?.stringValue ?? ""))
            #expect(linkedClaims["firebase"]?["sign_in_provider"] == .string("password"))
            #expect(linkedClaims["email"] == .string("ann@example.com"))

            let (s3, signedIn) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"ann@example.com","password":"secret1"}"#)
            #expect(s3 == .ok)
            #expect(signedIn["localId"] == .string(uid))
            #expect(signedIn["registered"] == .bool(true))
        }
    }

    @Test func signUpAndSignInErrorsComeInFirebaseOrder() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let cases: [(String, String, String)] = [
                ("signUp", #"{"password":"secret1"}"#, "MISSING_EMAIL"),
                ("signUp", #"{"email":"","password":""}"#, "INVALID_EMAIL"),
                ("signUp", #"{"email":"a@b.c"}"#, "MISSING_PASSWORD"),
                ("signUp", #"{"email":"not-an-email","password":"secret1"}"#, "INVALID_EMAIL"),
                ("signUp", #"{"email":"a@b.c","password":"12345"}"#, "WEAK_PASSWORD : Password should be at least 6 characters"),
                ("signUp", #"{"localId":"x"}"#, "UNEXPECTED_PARAMETER : User ID"),
                ("signInWithPassword", #"{"password":"x"}"#, "MISSING_EMAIL"),
                ("signInWithPassword", #"{"email":"nobody@b.c","password":"secret1"}"#, "EMAIL_NOT_FOUND"),
            ]
            for (op, body, code) in cases {
                let (status, json) = try await call(client, Self.v1 + op + "?key=k", body)
                #expect(status == .badRequest, "\(op) \(body)")
                #expect(errorMessage(json) == code, "\(op) \(body)")
                #expect(json["error"]?["errors"]?[0]?["reason"] == .string("invalid"))
            }
            #expect(try await call(client, Self.v1 + "signUp?key=k", #"{"email":"a@b.c","password":"secret1"}"#).0 == .ok)
            #expect(errorMessage(try await call(client, Self.v1 + "signUp?key=k", #"{"email":"A@b.c","password":"secret1"}"#).1) == "EMAIL_EXISTS")
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"a@b.c","password":"wrong12"}"#).1) == "INVALID_PASSWORD")
            // No API key.
            let (noKey, body) = try await call(client, Self.v1 + "signUp", "{}")
            #expect(noKey == .forbidden)
            #expect(body["error"]?["status"] == .string("PERMISSION_DENIED"))
        }
    }

    @Test func repeatedWrongPasswordsAreRateLimited() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            #expect(try await call(client, Self.v1 + "signUp?key=k", #"{"email":"r@b.c","password":"secret1"}"#).0 == .ok)
            for _ in 0..<10 {
                #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"r@b.c","password":"nope123"}"#).1) == "INVALID_PASSWORD")
            }
            // Even the right password is refused until the window passes.
            let (_, limited) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"r@b.c","password":"secret1"}"#)
            #expect(errorMessage(limited) == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test("an email change mails the previous address a RECOVER_EMAIL link that restores it and ends every session")
    func emailChangeCanBeRecovered() async throws {
        let now = LockedValue(Int64(1_800_000_000_000))
        try await withRouterClient(dev: true, auth: Self.service(clock: { now.get() })) { client in
            let (_, user) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"first@b.c","password":"secret1"}"#)
            let token = try #require(user["idToken"]?.stringValue)
            now.set(1_800_000_005_000)
            let (status, changed) = try await call(client, Self.v1 + "update?key=k", #"{"idToken":"\#(token)","email":"thief@b.c"}"#)
            #expect(status == .ok)
            #expect(changed["email"] == .string("thief@b.c"))
            let thiefToken = try #require(changed["idToken"]?.stringValue)
            let (_, looked) = try await call(client, Self.adminBase + ":lookup", #"{"localId":["\#(user["localId"]?.stringValue ?? "")"]}"#, headers: admin)
            #expect(looked["users"]?[0]?["initialEmail"] == .string("first@b.c"))

            let (_, text, _) = try await client.send(.get, "/emulator/v1/projects/demo/oobCodes", headers: [:])
            guard case .array(let pending)? = try JSONValue.parse(text)["oobCodes"] else { Issue.record("no listing"); return }
            let recovery = try #require(pending.first { $0["requestType"] == .string("RECOVER_EMAIL") })
            #expect(recovery["email"] == .string("first@b.c"))
            #expect(recovery["newEmail"] == .string("thief@b.c"))
            #expect(recovery["oobLink"]?.stringValue?.contains("mode=recoverEmail") == true)
            let code = try #require(recovery["oobCode"]?.stringValue)
            let (_, inspected) = try await call(client, Self.v1 + "resetPassword?key=k", #"{"oobCode":"\#(code)"}"#)
            #expect(inspected["requestType"] == .string("RECOVER_EMAIL"))
            #expect(inspected["email"] == .string("first@b.c"))

            now.set(1_800_000_010_000)
            let (applied, restored) = try await call(client, Self.v1 + "update?key=k", #"{"oobCode":"\#(code)"}"#)
            #expect(applied == .ok)
            #expect(restored["email"] == .string("first@b.c"))
            #expect(errorMessage(try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"\#(thiefToken)"}"#).1) == "TOKEN_EXPIRED")
            #expect(errorMessage(try await call(client, Self.v1 + "update?key=k", #"{"oobCode":"\#(code)"}"#).1) == "INVALID_OOB_CODE")
            let (_, signedIn) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"first@b.c","password":"secret1"}"#)
            #expect(signedIn["localId"] == user["localId"])
        }
    }

    @Test func passwordChangeRevokesOldTokensAndReturnsNewOnes() async throws {
        let now = LockedValue(Int64(1_800_000_000_000))
        try await withRouterClient(auth: Self.service(clock: { now.get() })) { client in
            let (_, user) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"p@b.c","password":"secret1"}"#)
            let oldToken = try #require(user["idToken"]?.stringValue)
            let oldRefresh = try #require(user["refreshToken"]?.stringValue)
            now.set(1_800_000_005_000)
            let (s, updated) = try await call(client, Self.v1 + "update?key=k", #"{"idToken":"\#(oldToken)","password":"another1","displayName":"P"}"#)
            #expect(s == .ok)
            #expect(updated["displayName"] == .string("P"))
            let newToken = try #require(updated["idToken"]?.stringValue)
            #expect(errorMessage(try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"\#(oldToken)"}"#).1) == "TOKEN_EXPIRED")
            let (ls, looked) = try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"\#(newToken)"}"#)
            #expect(ls == .ok)
            #expect(looked["users"]?[0]?["displayName"] == .string("P"))
            // The refresh token from before the change is revoked too.
            let (_, text, _) = try await client.send(
                .post, "/securetoken.googleapis.com/v1/token?key=k", "grant_type=refresh_token&refresh_token=\(oldRefresh)", headers: [:])
            #expect(errorMessage(try JSONValue.parse(text)) == "TOKEN_EXPIRED")
            let newRefresh = try #require(updated["refreshToken"]?.stringValue)
            let (rs, rtext, _) = try await client.send(
                .post, "/securetoken.googleapis.com/v1/token?key=k", #"{"grantType":"refresh_token","refreshToken":"\#(newRefresh)"}"#, headers: [:])
            #expect(rs == .ok)
            let refreshed = try JSONValue.parse(rtext)
            #expect(refreshed["token_type"] == .string("Bearer"))
            #expect(refreshed["user_id"] == user["localId"])
            #expect(refreshed["expires_in"] == .string("3600"))
        }
    }

    @Test func adminManagesUsersAndCustomClaimsReachTheRules() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (cs, created) = try await call(client, Self.adminBase, #"{"localId":"u1","email":"c@b.c","password":"secret1","displayName":"C"}"#, headers: admin)
            #expect(cs == .ok)
            #expect(created["localId"] == .string("u1"))
            #expect(created["idToken"] == nil)
            #expect(errorMessage(try await call(client, Self.adminBase, #"{"localId":"u1"}"#, headers: admin).1) == "DUPLICATE_LOCAL_ID")
            #expect(try await call(client, Self.adminBase, "{}", headers: [.authorization: "Bearer nope"]).0 == .unauthorized)
            let claims = #"{\"admin\":true}"#
            #expect(try await call(client, Self.adminBase + ":update", #"{"localId":"u1","customAttributes":"\#(claims)"}"#, headers: admin).0 == .ok)
            #expect(errorMessage(try await call(client, Self.adminBase + ":update", #"{"localId":"u1","customAttributes":"{\"sub\":1}"}"#, headers: admin).1) == "FORBIDDEN_CLAIM : sub")
            let (_, looked) = try await call(client, Self.adminBase + ":lookup", #"{"email":["C@B.C"],"localId":["u1","missing"]}"#, headers: admin)
            #expect(looked["users"]?.arrayCount == 1)
            #expect(looked["users"]?[0]?["customAttributes"] == .string(#"{"admin":true}"#))
            let (_, none) = try await call(client, Self.adminBase + ":lookup", #"{"localId":["missing"]}"#, headers: admin)
            #expect(none["users"] == nil)

            let (_, signedIn) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"c@b.c","password":"secret1"}"#)
            let token = try #require(signedIn["idToken"]?.stringValue)
            #expect(Self.key.verifiedPayload(token)?["admin"] == .bool(true))
            let rules = #"{"rules":{"admin":{".read":"auth.token.admin === true"},"users":{"$uid":{".write":"auth.uid === $uid"}}}}"#
            #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
            #expect(try await client.send(.get, "/admin.json?auth=\(token)", headers: [:]).0 == .ok)
            #expect(try await client.send(.put, "/users/u1.json", "1", headers: [.authorization: "Bearer \(token)"]).0 == .ok)
            #expect(try await client.send(.put, "/users/u2.json?auth=\(token)", "1", headers: [:]).0 == .unauthorized)
            // A token signed by another key is not accepted (production mode).
            let forged = try SigningKey.generate().sign(Self.key.verifiedPayload(token)!)
            let (fs, ftext, _) = try await client.send(.get, "/admin.json?auth=\(forged)", headers: [:])
            #expect(fs == .unauthorized)
            #expect(ftext == #"{"error":"Could not parse auth token."}"#)

            #expect(try await call(client, Self.adminBase + ":delete", #"{"localId":"u1"}"#, headers: admin).0 == .ok)
            #expect(errorMessage(try await call(client, Self.adminBase + ":delete", #"{"localId":"u1"}"#, headers: admin).1) == "USER_NOT_FOUND")
            #expect(errorMessage(try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"\#(token)"}"#).1) == "USER_NOT_FOUND")
        }
    }

    @Test func batchGetPagesInUIDOrder() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            for i in 0..<5 { #expect(try await call(client, Self.adminBase, #"{"localId":"user\#(i)"}"#, headers: admin).0 == .ok) }
            var seen: [String] = []
            var token = ""
            for _ in 0..<5 {
                let (_, text, _) = try await client.send(.get, Self.adminBase + ":batchGet?maxResults=2&nextPageToken=\(token)", headers: admin)
                let page = try JSONValue.parse(text)
                if case .array(let users)? = page["users"] { seen += users.compactMap { $0["localId"]?.stringValue } }
                guard let next = page["nextPageToken"]?.stringValue else { break }
                token = next
            }
            #expect(seen == ["user0", "user1", "user2", "user3", "user4"])
        }
    }

    @Test func phoneSignInAndLinkingAnAnonymousUser() async throws {
        let service = Self.service()
        try await withRouterClient(dev: true, auth: service) { client in
            func code(for session: String) async throws -> String {
                let (_, text, _) = try await client.send(.get, "/emulator/v1/projects/demo/verificationCodes", headers: [:])
                guard case .array(let all)? = try JSONValue.parse(text)["verificationCodes"],
                    let entry = all.first(where: { $0["sessionInfo"]?.stringValue == session }), let c = entry["code"]?.stringValue
                else { throw AuthError("no code") }
                return c
            }
            #expect(errorMessage(try await call(client, Self.v1 + "sendVerificationCode?key=k", #"{"phoneNumber":"12345"}"#).1)
                == "INVALID_PHONE_NUMBER : Invalid format.")
            // Trial user (anonymous) links a phone number and keeps the uid (the rewards app's path).
            let (_, anon) = try await call(client, Self.v1 + "signUp?key=k", "{}")
            let (_, sent) = try await call(client, Self.v1 + "sendVerificationCode?key=k", #"{"phoneNumber":"+15555550100"}"#)
            let session = try #require(sent["sessionInfo"]?.stringValue)
            let right = try await code(for: session)
            let wrong = right == "000000" ? "111111" : "000000"
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPhoneNumber?key=k", #"{"sessionInfo":"\#(session)","code":"\#(wrong)"}"#).1) == "INVALID_CODE")
            let link = #"{"sessionInfo":"\#(session)","code":"\#(right)","idToken":"\#(anon["idToken"]!.stringValue!)"}"#
            let (ls, linked) = try await call(client, Self.v1 + "signInWithPhoneNumber?key=k", link)
            #expect(ls == .ok)
            #expect(linked["localId"] == anon["localId"])
            #expect(linked["isNewUser"] == .bool(false))
            #expect(Self.key.verifiedPayload(linked["idToken"]!.stringValue!)?["phone_number"] == .string("+15555550100"))
            // The code is single-use.
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPhoneNumber?key=k", link).1) == "INVALID_SESSION_INFO")

            // Later sign-in with the same number finds the same user.
            let (_, again) = try await call(client, Self.v1 + "sendVerificationCode?key=k", #"{"phoneNumber":"+15555550100"}"#)
            let s2 = again["sessionInfo"]!.stringValue!
            let (_, signedIn) = try await call(client, Self.v1 + "signInWithPhoneNumber?key=k", #"{"sessionInfo":"\#(s2)","code":"\#(try await code(for: s2))"}"#)
            #expect(signedIn["localId"] == anon["localId"])

            // Linking a number that belongs to someone else answers with a temporary proof, no tokens.
            let (_, other) = try await call(client, Self.v1 + "signUp?key=k", "{}")
            let (_, s3json) = try await call(client, Self.v1 + "sendVerificationCode?key=k", #"{"phoneNumber":"+15555550100"}"#)
            let s3 = s3json["sessionInfo"]!.stringValue!
            let (_, conflict) = try await call(
                client, Self.v1 + "signInWithPhoneNumber?key=k",
                #"{"sessionInfo":"\#(s3)","code":"\#(try await code(for: s3))","idToken":"\#(other["idToken"]!.stringValue!)"}"#)
            #expect(conflict["temporaryProof"] != nil)
            #expect(conflict["idToken"] == nil)
        }
    }

    @Test func passwordResetAndEmailVerificationWithOutOfBandCodes() async throws {
        try await withRouterClient(dev: true, auth: Self.service()) { client in
            let (_, user) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"o@b.c","password":"secret1"}"#)
            #expect(errorMessage(try await call(client, Self.v1 + "sendOobCode?key=k", #"{"email":"o@b.c"}"#).1) == "MISSING_REQ_TYPE")
            #expect(errorMessage(try await call(client, Self.v1 + "sendOobCode?key=k", #"{"requestType":"PASSWORD_RESET","email":"x@b.c"}"#).1) == "EMAIL_NOT_FOUND")
            #expect(errorMessage(try await call(client, Self.v1 + "sendOobCode?key=k", #"{"requestType":"PASSWORD_RESET","email":"o@b.c","returnOobLink":true}"#).1) == "INSUFFICIENT_PERMISSION")
            let (rs, reset) = try await call(client, Self.v1 + "sendOobCode?key=k", #"{"requestType":"PASSWORD_RESET","email":"o@b.c"}"#)
            #expect(rs == .ok)
            #expect(reset["oobCode"] == nil)
            let (_, text, _) = try await client.send(.get, "/emulator/v1/projects/demo/oobCodes", headers: [:])
            let pending = try JSONValue.parse(text)
            let code = try #require(pending["oobCodes"]?[0]?["oobCode"]?.stringValue)
            #expect(pending["oobCodes"]?[0]?["oobLink"]?.stringValue?.contains("mode=resetPassword") == true)
            let (_, inspected) = try await call(client, Self.v1 + "resetPassword?key=k", #"{"oobCode":"\#(code)"}"#)
            #expect(inspected["requestType"] == .string("PASSWORD_RESET"))
            #expect(errorMessage(try await call(client, Self.v1 + "resetPassword?key=k", #"{"oobCode":"\#(code)","newPassword":"123"}"#).1)
                == "WEAK_PASSWORD : Password should be at least 6 characters")
            #expect(try await call(client, Self.v1 + "resetPassword?key=k", #"{"oobCode":"\#(code)","newPassword":"newsecret"}"#).0 == .ok)
            #expect(errorMessage(try await call(client, Self.v1 + "resetPassword?key=k", #"{"oobCode":"\#(code)","newPassword":"newsecret"}"#).1) == "INVALID_OOB_CODE")
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"o@b.c","password":"secret1"}"#).1) == "INVALID_PASSWORD")
            let (_, signedIn) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"o@b.c","password":"newsecret"}"#)
            #expect(signedIn["localId"] == user["localId"])

            // Email verification: the client sends its idToken, then applies the code.
            let token = signedIn["idToken"]!.stringValue!
            let (_, sent) = try await call(client, Self.adminBase + ":sendOobCode", #"{"requestType":"VERIFY_EMAIL","email":"o@b.c","returnOobLink":true}"#, headers: admin)
            let verifyCode = try #require(sent["oobCode"]?.stringValue)
            #expect(sent["oobLink"]?.stringValue?.contains("mode=verifyEmail") == true)
            #expect(try await call(client, Self.v1 + "update?key=k", #"{"oobCode":"\#(verifyCode)"}"#).0 == .ok)
            let (_, looked) = try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"\#(token)"}"#)
            #expect(looked["users"]?[0]?["emailVerified"] == .bool(true))

            // A click on an emailed reset link (dev): the link applies the code.
            let (_, resetLink) = try await call(client, Self.adminBase + ":sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"o@b.c","returnOobLink":true}"#, headers: admin)
            let link = try #require(resetLink["oobLink"]?.stringValue)
            let start = try #require(link.firstRange(of: "/emulator/action")?.lowerBound)
            let pathAndQuery = String(link[start...])
            let (clicked, body, _) = try await client.send(.get, pathAndQuery + "&newPassword=thirdsecret", headers: [:])
            #expect(clicked == .ok, "\(body)")
            #expect(try JSONValue.parse(body)["authEmulator"]?["email"] == .string("o@b.c"))
            #expect(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"o@b.c","password":"thirdsecret"}"#).0 == .ok)
        }
    }

    @Test func customTokensAndSignInMethods() async throws {
        try await withRouterClient(dev: true, auth: Self.service()) { client in
            let payload = #"{"aud":"\#(AuthService.customTokenAudience)","uid":"custom-1","claims":{"premium":true}}"#
            let token = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            let (s, signedIn) = try await call(client, Self.v1 + "signInWithCustomToken?key=k", #"{"token":"\#(token)","returnSecureToken":true}"#)
            #expect(s == .ok)
            #expect(signedIn["isNewUser"] == .bool(true))
            let claims = try #require(Self.key.verifiedPayload(signedIn["idToken"]!.stringValue!))
            #expect(claims["sub"] == .string("custom-1"))
            #expect(claims["premium"] == .bool(true))
            #expect(claims["firebase"]?["sign_in_provider"] == .string("custom"))
            // Developer claims survive a refresh.
            let (_, text, _) = try await client.send(
                .post, "/securetoken.googleapis.com/v1/token?key=k", "grant_type=refresh_token&refresh_token=\(signedIn["refreshToken"]!.stringValue!)", headers: [:])
            #expect(Self.key.verifiedPayload(try JSONValue.parse(text)["id_token"]!.stringValue!)?["premium"] == .bool(true))

            #expect(try await call(client, Self.v1 + "signUp?key=k", #"{"email":"m@b.c","password":"secret1"}"#).0 == .ok)
            let (_, methods) = try await call(client, Self.v1 + "createAuthUri?key=k", #"{"identifier":"m@b.c","continueUri":"http://localhost"}"#)
            #expect(methods["registered"] == .bool(true))
            #expect(methods["signinMethods"] == .array([.string("password")]))
        }
    }

    @Test func importDeleteQueryAndSessionCookies() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let users = #"{"users":[{"localId":"i1","email":"i1@b.c","rawPassword":"secret1"},{"localId":"i2","email":"bad"},{"localId":"i3","disabled":true}]}"#
            let (_, imported) = try await call(client, Self.adminBase + ":batchCreate", users, headers: admin)
            #expect(imported["error"]?.arrayCount == 1)
            #expect(imported["error"]?[0]?["index"] == .int(1))
            let (_, signedIn) = try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"i1@b.c","password":"secret1"}"#)
            #expect(signedIn["localId"] == .string("i1"))

            let (_, counted) = try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:queryAccounts", #"{"returnUserInfo":false}"#, headers: admin)
            #expect(counted["recordsCount"] == .string("2"))

            let token = signedIn["idToken"]!.stringValue!
            let (_, cookie) = try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:createSessionCookie", #"{"idToken":"\#(token)","validDuration":600}"#, headers: admin)
            let session = try #require(Self.key.verifiedPayload(cookie["sessionCookie"]?.stringValue ?? ""))
            #expect(session["iss"] == .string("https://session.firebase.google.com/demo"))
            #expect(session["sub"] == .string("i1"))
            #expect(errorMessage(try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:createSessionCookie", #"{"idToken":"\#(token)","validDuration":10}"#, headers: admin).1) == "INVALID_DURATION")

            // Without force, enabled users are not deleted; disabled ones are.
            let (_, partial) = try await call(client, Self.adminBase + ":batchDelete", #"{"localIds":["i1","i3","nobody"]}"#, headers: admin)
            #expect(partial["errors"]?.arrayCount == 1)
            #expect(partial["errors"]?[0]?["localId"] == .string("i1"))
            let (_, forced) = try await call(client, Self.adminBase + ":batchDelete", #"{"localIds":["i1"],"force":true}"#, headers: admin)
            #expect(forced == .object([]))
            let (_, none) = try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:queryAccounts", "{}", headers: admin)
            #expect(none["recordsCount"] == .string("0"))
        }
    }

    @Test func jwksPublishesTheSigningKey() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (status, text, _) = try await client.send(.get, "/.well-known/jwks.json", headers: [:])
            #expect(status == .ok)
            let keys = try JSONValue.parse(text)
            #expect(keys["keys"]?[0]?["kid"] == .string(Self.key.kid))
            #expect(keys["keys"]?[0]?["alg"] == .string("RS256"))
        }
    }
}

/// A tiny lock-protected value for injected clocks.
final class LockedValue<T: Sendable>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ v: T) { value = v }
    func get() -> T { lock.withLock { value } }
    func set(_ v: T) { lock.withLock { value = v } }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    var arrayCount: Int? {
        if case .array(let items) = self { return items.count }
        return nil
    }
}

extension AuthRouterTests {
    @Test func emailLinkSignInListsThePasswordProvider() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let send = #"{"requestType":"EMAIL_SIGNIN","email":"l@b.c","continueUrl":"http://localhost/done","returnOobLink":true}"#
            let (_, sent) = try await call(client, Self.adminBase + ":sendOobCode", send, headers: admin)
            let code = try #require(sent["oobCode"]?.stringValue)
            let (status, signedIn) = try await call(client, Self.v1 + "signInWithEmailLink?key=k", #"{"email":"l@b.c","oobCode":"\#(code)"}"#)
            #expect(status == .ok)
            let uid = try #require(signedIn["localId"]?.stringValue)
            let (_, looked) = try await call(client, Self.adminBase + ":lookup", #"{"localId":["\#(uid)"]}"#, headers: admin)
            let user = try #require(looked["users"]?[0])
            #expect(user["emailLinkSignin"] == .bool(true))
            #expect(user["emailVerified"] == .bool(true))
            #expect(user["passwordHash"] == nil, "an email-link user has no password")
            #expect(user["providerUserInfo"] == .array([.object([
                JSONMember("providerId", .string("password")), JSONMember("rawId", .string("l@b.c")),
                JSONMember("federatedId", .string("l@b.c")), JSONMember("email", .string("l@b.c")),
            ])]))
        }
    }
}

extension AuthRouterTests {
    @Test func projectConfigListsLocalhostAndTheAuthorizedDomains() async throws {
        let service = AuthService(
            projectID: "demo", store: MemoryAccountStore(), key: Self.key, hasher: PasswordHasher(rounds: 1 << 4),
            options: .init(authorizedDomains: ["app.example.com"]))
        try await withRouterClient(auth: service) { client in
            for path in ["/identitytoolkit.googleapis.com/v1/projects?key=k", "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig?key=k"] {
                let (status, text, _) = try await client.send(.get, path, headers: [:])
                #expect(status == .ok, "\(path)")
                let config = try JSONValue.parse(text)
                #expect(config["projectId"] == .string("demo"), "\(path)")
                #expect(config["authorizedDomains"] == .array([.string("localhost"), .string("app.example.com")]), "\(path)")
            }
            #expect(try await client.send(.get, "/identitytoolkit.googleapis.com/v1/projects", headers: [:]).0 == .forbidden, "no API key")
            for path in ["/identitytoolkit.googleapis.com/v1/recaptchaParams?key=k", "/www.googleapis.com/identitytoolkit/v3/relyingparty/getRecaptchaParam?key=k"] {
                let (status, text, _) = try await client.send(.get, path, headers: [:])
                #expect(status == .ok, "\(path)")
                let params = try JSONValue.parse(text)
                #expect(params["kind"] == .string("identitytoolkit#GetRecaptchaParamResponse"))
                #expect(params["recaptchaSiteKey"]?.stringValue?.isEmpty == false)
                #expect(params["recaptchaStoken"]?.stringValue?.isEmpty == false)
            }
        }
        // Without a domain list (any continue URL is accepted), clients are told about localhost only.
        try await withRouterClient(auth: Self.service()) { client in
            let (_, text, _) = try await client.send(.get, "/identitytoolkit.googleapis.com/v1/projects?key=k", headers: [:])
            #expect(try JSONValue.parse(text)["authorizedDomains"] == .array([.string("localhost")]))
        }
    }
}

extension AuthRouterTests {
    @Test func onlyAdminCallsMayNameATargetProject() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            for body in [#"{"targetProjectId":"other"}"#, #"{"target_project_id":"other","email":"t@b.c","password":"secret1"}"#] {
                let (status, json) = try await call(client, Self.v1 + "signUp?key=k", body)
                #expect(status == .badRequest, "\(body)")
                #expect(errorMessage(json) == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.", "\(body)")
            }
            let (_, lookup) = try await call(client, Self.v1 + "lookup?key=k", #"{"idToken":"x","targetProjectId":"demo"}"#)
            #expect(errorMessage(lookup) == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            // No account was created by the refused sign-ups.
            let (_, counted) = try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:queryAccounts", #"{"returnUserInfo":false}"#, headers: admin)
            #expect(counted["recordsCount"] == .string("0"))
        }
    }
}

extension AuthRouterTests {
    @Test func unknownOperationsAreNotFound() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            for path in [Self.v1 + "nonsense?key=k", Self.adminBase + ":nonsense"] {
                let (status, json) = try await call(client, path, "{}", headers: path.contains("projects") ? admin : [:])
                #expect(status == .notFound, "\(path)")
                #expect(json["error"]?["status"] == .string("NOT_FOUND"), "\(path)")
            }
        }
    }

    @Test func signInWithIdpIsServedAtItsV1AndV3Paths() async throws {
        let emulator = AuthService(
            projectID: "demo", store: MemoryAccountStore(), key: Self.key, hasher: PasswordHasher(rounds: 1 << 4),
            options: .init(identityProviders: .emulator))
        try await withRouterClient(auth: emulator) { client in
            // The service reads provider tokens as the emulator does: an unsigned JWT's payload.
            let payload = Base64URL.encode(Array(#"{"sub":"g-42","email":"gus@x.io","email_verified":true}"#.utf8))
            let post = "id_token=e30.\(payload).&providerId=google.com"
            var uid: String?
            for path in [Self.v1 + "signInWithIdp?key=k", "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion?key=k"] {
                let (status, json) = try await call(client, path, #"{"requestUri":"http://localhost","postBody":"\#(post)","returnSecureToken":true}"#)
                #expect(status == .ok, "\(path): \(json)")
                #expect(json["kind"] == .string("identitytoolkit#VerifyAssertionResponse"))
                #expect(json["idToken"]?.stringValue?.isEmpty == false)
                if let uid { #expect(json["localId"] == .string(uid), "the second path reaches the same user") }
                uid = json["localId"]?.stringValue
            }
            let (status, refused) = try await call(client, Self.v1 + "signInWithIdp?key=k", #"{"postBody":"\#(post)"}"#)
            #expect(status == .badRequest)
            #expect(errorMessage(refused) == "MISSING_REQUEST_URI")
        }
    }
}

extension AuthRouterTests {
    @Test func sessionCookieKeysArePublishedWithCacheControl() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (s1, jwksText, h1) = try await client.send(.get, "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys", headers: [:])
            #expect(s1 == .ok)
            #expect(try JSONValue.parse(jwksText)["keys"]?[0]?["kid"] == .string(Self.key.kid))
            #expect(h1[.cacheControl]?.hasPrefix("public, max-age=") == true)

            let (s2, x509Text, h2) = try await client.send(.get, "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys", headers: [:])
            #expect(s2 == .ok)
            #expect(try JSONValue.parse(x509Text)[Self.key.kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
            #expect(h2[.cacheControl]?.hasPrefix("public, max-age=") == true)

            for path in [
                "/.well-known/jwks.json", "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            ] {
                let (status, _, headers) = try await client.send(.get, path, headers: [:])
                #expect(status == .ok, "\(path)")
                #expect(headers[.cacheControl]?.hasPrefix("public, max-age=") == true, "\(path)")
            }
        }
    }
}
