import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

// Phone temporary proofs, the emulator config endpoint, the v3 account download/upload aliases,
// and the admin query/import/type checks: split from AuthRouterTests.swift to keep each file short.

extension AuthRouterTests {
    @Test func aTemporaryProofSignsInAsThePhonesOwnerOnce() async throws {
        try await withRouterClient(dev: true, auth: Self.service()) { client in
            func signIn(_ phone: String, idToken: String? = nil) async throws -> JSONValue {
                let (_, sent) = try await call(client, Self.v1 + "sendVerificationCode?key=k", #"{"phoneNumber":"\#(phone)"}"#)
                let session = try #require(sent["sessionInfo"]?.stringValue)
                let (_, text, _) = try await client.send(.get, "/emulator/v1/projects/demo/verificationCodes", headers: [:])
                guard case .array(let all)? = try JSONValue.parse(text)["verificationCodes"],
                    let code = all.first(where: { $0["sessionInfo"]?.stringValue == session })?["code"]?.stringValue
                else { throw AuthError("no code") }
                let token = idToken.map { #","idToken":"\#($0)""# } ?? ""
                return try await call(client, Self.v1 + "signInWithPhoneNumber?key=k", #"{"sessionInfo":"\#(session)","code":"\#(code)"\#(token)}"#).1
            }
            let owner = try await signIn("+15555550111")
            let (_, other) = try await call(client, Self.v1 + "signUp?key=k", "{}")
            let conflict = try await signIn("+15555550111", idToken: other["idToken"]?.stringValue)
            let proof = try #require(conflict["temporaryProof"]?.stringValue)
            #expect(conflict["temporaryProofExpiresIn"] == .string("3600"))
            // The proof is not an OOB code.
            let (_, oob, _) = try await client.send(.get, "/emulator/v1/projects/demo/oobCodes", headers: [:])
            #expect(try JSONValue.parse(oob)["oobCodes"] == .array([]))

            let path = Self.v1 + "signInWithPhoneNumber?key=k"
            #expect(errorMessage(try await call(client, path, #"{"temporaryProof":"\#(proof)"}"#).1) == "MISSING_PHONE_NUMBER")
            #expect(errorMessage(try await call(client, path, #"{"temporaryProof":"forged","phoneNumber":"+15555550111"}"#).1) == "INVALID_TEMPORARY_PROOF")
            #expect(errorMessage(try await call(client, path, #"{"temporaryProof":"\#(proof)","phoneNumber":"+15555550122"}"#).1) == "INVALID_TEMPORARY_PROOF")
            let (status, signedIn) = try await call(client, path, #"{"temporaryProof":"\#(proof)","phoneNumber":"+15555550111"}"#)
            #expect(status == .ok)
            #expect(signedIn["localId"] == owner["localId"])
            #expect(signedIn["isNewUser"] == .bool(false))
            #expect(Self.key.verifiedPayload(signedIn["idToken"]?.stringValue ?? "")?["firebase"]?["sign_in_provider"] == .string("phone"))
            // Single use.
            #expect(errorMessage(try await call(client, path, #"{"temporaryProof":"\#(proof)","phoneNumber":"+15555550111"}"#).1) == "INVALID_TEMPORARY_PROOF")
        }
    }
}

extension AuthRouterTests {
    @Test("the emulator's PATCH config switches email privacy for the next sign-in and refuses what it cannot do")
    func emulatorConfigCanBePatched() async throws {
        try await withRouterClient(dev: true, auth: Self.service()) { client in
            let configPath = "/emulator/v1/projects/demo/config"
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"no@b.c","password":"secret1"}"#).1) == "EMAIL_NOT_FOUND")

            let (status, text, _) = try await client.send(.patch, configPath, #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#)
            #expect(status == .ok)
            let patched = try JSONValue.parse(text)
            #expect(patched["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))
            #expect(patched["signIn"]?["allowDuplicateEmails"] == .bool(false))
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"no@b.c","password":"secret1"}"#).1) == "INVALID_LOGIN_CREDENTIALS")
            let (_, read, _) = try await client.send(.get, configPath, headers: [:])
            #expect(try JSONValue.parse(read)["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))

            // Absent fields are kept; a wrong type, an unknown field or duplicate emails are 400s that change nothing.
            #expect(try await client.send(.patch, configPath, #"{"signIn":{"allowDuplicateEmails":false}}"#).0 == .ok)
            for bad in [#"{"signIn":{"allowDuplicateEmails":true}}"#, #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":"no"}}"#,
                        #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false},"colour":1}"#, "[1]"] {
                let (badStatus, badText, _) = try await client.send(.patch, configPath, bad)
                #expect(badStatus == .badRequest, "\(bad)")
                #expect(try JSONValue.parse(badText)["error"]?["status"] == .string("INVALID_ARGUMENT"), "\(bad)")
            }
            let (_, after, _) = try await client.send(.get, configPath, headers: [:])
            #expect(try JSONValue.parse(after)["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))

            #expect(try await client.send(.patch, configPath, #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#).0 == .ok)
            #expect(errorMessage(try await call(client, Self.v1 + "signInWithPassword?key=k", #"{"email":"no@b.c","password":"secret1"}"#).1) == "EMAIL_NOT_FOUND")
        }
        // Outside --dev the emulator endpoints do not exist.
        try await withRouterClient(auth: Self.service()) { client in
            let (status, _, _) = try await client.send(.patch, "/emulator/v1/projects/demo/config", #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#)
            #expect(status == .notFound)
        }
    }

    @Test("v3 downloadAccount and uploadAccount are the admin batchGet and batchCreate")
    func legacyAccountDownloadAndUpload() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
            let upload = #"{"targetProjectId":"demo","users":[{"localId":"a1","email":"a1@b.c"},{"localId":"a2"},{"localId":"a3"}]}"#
            // Without the admin token: refused, before or after the target project is looked at.
            #expect(errorMessage(try await call(client, v3 + "uploadAccount?key=k", upload).1)?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
            #expect(try await call(client, v3 + "uploadAccount?key=k", #"{"users":[{"localId":"x1"}]}"#).0 == .unauthorized)
            let (status, uploaded) = try await call(client, v3 + "uploadAccount", upload, headers: admin)
            #expect(status == .ok)
            #expect(uploaded["kind"] == .string("identitytoolkit#UploadAccountResponse"))

            #expect(try await call(client, v3 + "downloadAccount?key=k", #"{"maxResults":2}"#).0 == .unauthorized)
            let (_, first) = try await call(client, v3 + "downloadAccount", #"{"targetProjectId":"demo","maxResults":2}"#, headers: admin)
            #expect(first["kind"] == .string("identitytoolkit#DownloadAccountResponse"))
            #expect(first["users"]?[0]?["email"] == .string("a1@b.c"))
            let token = try #require(first["nextPageToken"]?.stringValue)
            let (_, second) = try await call(client, v3 + "downloadAccount", #"{"maxResults":"2","nextPageToken":"\#(token)"}"#, headers: admin)
            #expect(second["users"]?[0]?["localId"] == .string("a3"))
            #expect(second["nextPageToken"] == nil)
            #expect(second["users"]?[1] == nil, "the refused uploads created nobody")
            // The v1 batchGet reads its page from the query string, even when POSTed.
            let (_, posted, _) = try await client.send(.post, Self.adminBase + ":batchGet?maxResults=1", "", headers: admin)
            #expect(try JSONValue.parse(posted)["users"]?[1] == nil)
            #expect(try JSONValue.parse(posted)["nextPageToken"] != nil)
            let (badStatus, bad) = try await call(client, v3 + "downloadAccount", #"{"maxResults":"many"}"#, headers: admin)
            #expect(badStatus == .badRequest)
            #expect(errorMessage(bad) == "INVALID_PAGE_SELECTION")
        }
    }
}

extension AuthRouterTests {
    @Test("accounts:query refuses out-of-range pages instead of crashing, and the server keeps serving")
    func queryBoundsAreChecked() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let query = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:query"
            for i in 0..<3 { #expect(try await call(client, Self.adminBase, #"{"localId":"q\#(i)"}"#, headers: admin).0 == .ok) }
            for body in [#"{"offset":-5}"#, #"{"limit":9223372036854775807,"offset":1}"#, #"{"limit":-1}"#, #"{"limit":501}"#, #"{"limit":"many"}"#] {
                let (status, json) = try await call(client, query, body, headers: admin)
                #expect(status == .badRequest, "\(body)")
                #expect(errorMessage(json)?.hasPrefix("INVALID_ARGUMENT") == true, "\(body)")
            }
            // proto3's 0 is "unset": the default page.
            let (_, everyone) = try await call(client, query, #"{"limit":0}"#, headers: admin)
            #expect(everyone["userInfo"]?[2]?["localId"] == .string("q2"))
            let (status, page) = try await call(client, query, #"{"limit":2,"offset":1}"#, headers: admin)
            #expect(status == .ok)
            #expect(page["recordsCount"] == .string("3"))
            #expect(page["userInfo"]?[0]?["localId"] == .string("q1"))
            #expect(page["userInfo"]?[1]?["localId"] == .string("q2"))
            #expect(page["userInfo"]?[2] == nil)
        }
    }

    @Test("accounts:query with expressions returns only the accounts they name, by email, uid or phone")
    func queryExpressionsFilter() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let query = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:query"
            let users = [#"{"localId":"a","email":"Ann@B.c"}"#, #"{"localId":"b","phoneNumber":"+15550001111"}"#, #"{"localId":"c"}"#]
            for user in users { #expect(try await call(client, Self.adminBase, user, headers: admin).0 == .ok) }
            let (status, found) = try await call(
                client, query, #"{"expression":[{"email":"ann@b.c"},{"phoneNumber":"+15550001111"},{"userId":"nobody"}]}"#, headers: admin)
            #expect(status == .ok)
            #expect(found["recordsCount"] == .string("2"))
            #expect(found["userInfo"]?[0]?["localId"] == .string("a"))
            #expect(found["userInfo"]?[1]?["localId"] == .string("b"))
            #expect(found["userInfo"]?[2] == nil)
            let (_, byUID) = try await call(client, query, #"{"expression":[{"userId":"c"}],"returnUserInfo":false}"#, headers: admin)
            #expect(byUID["recordsCount"] == .string("1"))
            #expect(byUID["userInfo"] == nil)
            let (refused, json) = try await call(client, query, #"{"expression":[{"email":"ann@b.c","userId":"a"}]}"#, headers: admin)
            #expect(refused == .badRequest)
            #expect(errorMessage(json)?.hasPrefix("INVALID_ARGUMENT") == true)
        }
    }

    @Test("an import refuses duplicate uids, bad scrypt parameters and empty lists whole, and bad users one by one")
    func importChecks() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let batchCreate = Self.adminBase + ":batchCreate"
            let whole: [(String, String)] = [
                (#"{"users":[]}"#, "MISSING_USER_ACCOUNT"),
                (#"{"users":[{"localId":"d","email":"first@b.c"},{"localId":"d","email":"second@b.c"}]}"#, "DUPLICATE_LOCAL_ID : d"),
                (#"{"hashAlgorithm":"SCRYPT","signerKey":"AAAA","rounds":0,"memoryCost":14,"users":[{"localId":"s"}]}"#, "INVALID_HASH_ROUNDS : SCRYPT rounds must be 1-8"),
                (#"{"hashAlgorithm":"SCRYPT","signerKey":"AAAA","rounds":8,"memoryCost":33,"users":[{"localId":"s"}]}"#, "INVALID_HASH_MEMORY_COST : SCRYPT memoryCost must be 1-14"),
                (#"{"users":{"localId":"x"}}"#, "INVALID_ARGUMENT"),
            ]
            for (body, message) in whole {
                let (status, json) = try await call(client, batchCreate, body, headers: admin)
                #expect(status == .badRequest, "\(body)")
                #expect(errorMessage(json)?.hasPrefix(message) == true, "\(body): \(String(describing: errorMessage(json)))")
            }
            let (_, counted) = try await call(client, "/identitytoolkit.googleapis.com/v1/projects/demo:queryAccounts", #"{"returnUserInfo":false}"#, headers: admin)
            #expect(counted["recordsCount"] == .string("0"), "no refused request imported anyone")

            let google = #"{"providerId":"google.com","rawId":"g-1"}"#
            #expect(try await call(client, batchCreate, #"{"users":[{"localId":"a","providerUserInfo":[\#(google)]}]}"#, headers: admin).1["error"] == nil)
            let mixed = """
                {"users":[{"localId":"ok","phoneNumber":"+15550001111"},{"localId":"p","phoneNumber":"+1 (555) 010-99"},
                {"localId":"b","providerUserInfo":[\(google)]},{"localId":"t","emailVerified":"yes"},
                {"localId":"r","email":"r@b.c","passwordHash":"UkVEQUNURUQ=","salt":"UkVEQUNURUQ="}]}
                """
            let (status, result) = try await call(client, batchCreate, mixed, headers: admin)
            #expect(status == .ok)
            let errors = try #require(result["error"])
            #expect(errors[0]?["index"] == .int(1))
            #expect(errors[0]?["message"] == .string("phone number format is invalid"))
            #expect(errors[1]?["index"] == .int(2))
            #expect(errors[1]?["message"] == .string("raw id exists in other account in database"))
            #expect(errors[2]?["index"] == .int(3))
            #expect(errors[2]?["message"]?.stringValue?.hasPrefix("Invalid value at 'emailVerified' (TYPE_BOOL)") == true)
            #expect(errors[3]?["index"] == .int(4))
            #expect(errors[4] == nil)
            let (_, found) = try await call(client, Self.adminBase + ":lookup", #"{"localId":["ok","p","b","t","r"]}"#, headers: admin)
            #expect(found["users"]?[0]?["localId"] == .string("ok"))
            #expect(found["users"]?[1] == nil, "only the valid user was imported")
        }
    }

    @Test("fields of the wrong JSON type are refused, not read as absent")
    func wrongTypesAreRefused() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (_, user) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"w@b.c","password":"secret1","returnSecureToken":true}"#)
            let uid = try #require(user["localId"]?.stringValue)
            let idToken = try #require(user["idToken"]?.stringValue)
            let cases: [(String, String, HTTPFields)] = [
                (Self.adminBase + ":update", #"{"localId":"\#(uid)","emailVerified":"yes"}"#, admin),
                (Self.adminBase + ":update", #"{"localId":"\#(uid)","validSince":"abc"}"#, admin),
                (Self.adminBase + ":update", #"{"localId":"\#(uid)","customAttributes":{"admin":true}}"#, admin),
                (Self.adminBase + ":update", #"{"localId":"\#(uid)","deleteAttribute":"DISPLAY_NAME"}"#, admin),
                ("/identitytoolkit.googleapis.com/v1/projects/demo:createSessionCookie", #"{"idToken":"\#(idToken)","validDuration":"abc"}"#, admin),
                (Self.v1 + "signUp?key=k", #"{"email":"x@b.c","password":123456}"#, [:]),
            ]
            for (path, body, headers) in cases {
                let (status, json) = try await call(client, path, body, headers: headers)
                #expect(status == .badRequest, "\(body)")
                #expect(errorMessage(json)?.hasPrefix("INVALID_ARGUMENT : Invalid value at") == true, "\(body): \(String(describing: errorMessage(json)))")
            }
            let (pageStatus, _, _) = try await client.send(.get, Self.adminBase + ":batchGet?maxResults=abc", headers: admin)
            #expect(pageStatus == .badRequest)
            let (_, after) = try await call(client, Self.adminBase + ":lookup", #"{"localId":["\#(uid)"]}"#, headers: admin)
            #expect(after["users"]?[0]?["emailVerified"] == .bool(false), "the refused updates changed nothing")
        }
    }
}
