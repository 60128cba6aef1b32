import Foundation
@testable import Hearth
import Testing

/// Sign-up, sign-in, anonymous and phone users, linking and custom tokens against a live server.
@Suite("Auth sign-in (live)")
struct AuthSignInTests {
    @Test func signUpSignOutAndSignInAgain() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            #expect(auth.currentUser == nil)
            let created = try await auth.signUp(email: "Ann@Example.com", password: "secret12")
            #expect(created.email == "ann@example.com")
            #expect(!created.isAnonymous)
            #expect(created.providerIDs == ["password"])
            #expect(created.emailVerified == false)
            #expect(created.metadata.creationDate != nil)
            #expect(auth.currentUser == created)
            let token = try #require(try await auth.idToken())
            #expect(token.split(separator: ".").count == 3)

            try auth.signOut()
            #expect(auth.currentUser == nil)
            #expect(try await auth.idToken() == nil)

            let again = try await auth.signIn(email: "ann@example.com", password: "secret12")
            #expect(again.uid == created.uid)
            #expect(auth.currentUser?.uid == created.uid)
        }
    }

    @Test func wrongCredentialsAndBadSignUpsAreTypedErrors() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signUp(email: "bob@example.com", password: "secret12")
            try auth.signOut()

            let wrong = await #expect(throws: AuthError.self) { try await auth.signIn(email: "bob@example.com", password: "nope-nope") }
            #expect(wrong?.code == .wrongPassword)
            #expect(wrong?.serverMessage == "INVALID_PASSWORD")
            #expect(wrong?.status == 400)
            #expect(auth.currentUser == nil)

            let unknown = await #expect(throws: AuthError.self) { try await auth.signIn(email: "nobody@example.com", password: "secret12") }
            #expect(unknown?.code == .userNotFound)

            let taken = await #expect(throws: AuthError.self) { try await auth.signUp(email: "bob@example.com", password: "secret12") }
            #expect(taken?.code == .emailAlreadyInUse)

            let weak = await #expect(throws: AuthError.self) { try await auth.signUp(email: "carl@example.com", password: "123") }
            #expect(weak?.code == .weakPassword)
            #expect(weak?.serverCode == "WEAK_PASSWORD")
            #expect(weak?.serverMessage?.hasPrefix("WEAK_PASSWORD : ") == true)

            let invalid = await #expect(throws: AuthError.self) { try await auth.signUp(email: "not-an-email", password: "secret12") }
            #expect(invalid?.code == .invalidEmail)
        }
    }

    @Test func anonymousUserLinksEmailAndKeepsUID() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let anonymous = try await auth.signInAnonymously()
            #expect(anonymous.isAnonymous)
            #expect(anonymous.email == nil)
            #expect(anonymous.providerIDs.isEmpty)

            let linked = try await auth.link(email: "dana@example.com", password: "secret12")
            #expect(linked.uid == anonymous.uid)
            #expect(!linked.isAnonymous)
            #expect(linked.email == "dana@example.com")
            #expect(linked.providerIDs == ["password"])
            #expect(auth.currentUser == linked)

            try auth.signOut()
            let signedIn = try await auth.signIn(email: "dana@example.com", password: "secret12")
            #expect(signedIn.uid == anonymous.uid)
        }
    }

    @Test func linkingNeedsASignedInUser() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let error = await #expect(throws: AuthError.self) { try await auth.link(email: "x@example.com", password: "secret12") }
            #expect(error?.code == .notSignedIn)
        }
    }

    @Test func phoneSignInWithTheTextedCode() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let phone = "+15555550100"
            let verificationID = try await auth.sendPhoneVerificationCode(phoneNumber: phone)
            #expect(!verificationID.isEmpty)
            let code = try await server.smsCode(for: phone)
            #expect(code.count == 6)

            let wrongCode = code == "000000" ? "111111" : "000000"
            let wrong = await #expect(throws: AuthError.self) { try await auth.signIn(verificationID: verificationID, code: wrongCode) }
            #expect(wrong?.code == .invalidVerificationCode)

            let user = try await auth.signIn(verificationID: verificationID, code: code)
            #expect(user.phoneNumber == phone)
            #expect(user.providerIDs == ["phone"])
            #expect(!user.isAnonymous)

            // The code is single-use.
            let reused = await #expect(throws: AuthError.self) { try await auth.signIn(verificationID: verificationID, code: code) }
            #expect(reused?.code == .invalidVerificationID)

            let invalidNumber = await #expect(throws: AuthError.self) { try await auth.sendPhoneVerificationCode(phoneNumber: "555") }
            #expect(invalidNumber?.code == .invalidPhoneNumber)
        }
    }

    @Test func anonymousUserLinksAPhoneNumberAndKeepsUID() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let anonymous = try await auth.signInAnonymously()
            let phone = "+15555550111"
            let verificationID = try await auth.sendPhoneVerificationCode(phoneNumber: phone)
            let linked = try await auth.link(verificationID: verificationID, code: try await server.smsCode(for: phone))
            #expect(linked.uid == anonymous.uid)
            #expect(linked.phoneNumber == phone)
            #expect(!linked.isAnonymous)

            // The same number cannot be linked to a second account.
            let other = server.auth()
            try await other.signInAnonymously()
            let second = try await other.sendPhoneVerificationCode(phoneNumber: phone)
            let error = await #expect(throws: AuthError.self) {
                try await other.link(verificationID: second, code: try await server.smsCode(for: phone))
            }
            #expect(error?.code == .credentialAlreadyInUse)
            #expect(other.currentUser?.isAnonymous == true)

            // The trial user switches to the account that has the number (the loyalty app's
            // "I already have an account" path), with the proof from the error: no second code.
            let proof = try #require(error?.phoneProof)
            #expect(proof.phoneNumber == phone)
            let owner = try await other.signIn(phoneProof: proof)
            #expect(owner.uid == anonymous.uid)
            #expect(other.currentUser?.uid == anonymous.uid)
            // A proof works once.
            let reused = await #expect(throws: AuthError.self) { try await server.auth().signIn(phoneProof: proof) }
            #expect(reused?.code == .invalidVerificationID)
        }
    }

    @Test func customTokenSignIn() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            // `--dev` decodes custom tokens without a signature, as the emulator does.
            let user = try await auth.signIn(customToken: #"{"uid":"custom-user-1","claims":{"role":"admin"}}"#)
            #expect(user.uid == "custom-user-1")
            #expect(!user.isAnonymous)
            let token = try #require(try await auth.idToken())
            let claims = try #require(decodeClaims(token))
            #expect(claims["role"] as? String == "admin")

            let bad = await #expect(throws: AuthError.self) { try await auth.signIn(customToken: "not.a.token") }
            #expect(bad?.code == .invalidCustomToken)
        }
    }

    @Test func unreachableServerIsANetworkError() async throws {
        // Port 1 (tcpmux): nothing listens there.
        let auth = Auth(options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:1")!, projectID: "demo"))
        let error = await #expect(throws: AuthError.self) { try await auth.signInAnonymously() }
        #expect(error?.code == .network)
        #expect(error?.status == nil)
        #expect(error?.cause != nil)
    }
}

/// The payload of a JWT.
func decodeClaims(_ token: String) -> [String: Any]? {
    let parts = token.split(separator: ".")
    guard parts.count >= 2 else { return nil }
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text) else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
}
