import Crypto
import Foundation
@testable import Hearth
import Testing

/// Sign-in and linking with an identity provider's ID token against a live `--dev` server, which reads provider
/// tokens unchecked as Firebase's emulator does (so the test makes its own).
@Suite("Auth with identity providers (live)")
struct AuthProviderTests {
    /// An unsigned JWT carrying `claims`.
    static func token(_ claims: String) -> String {
        let payload = Data(claims.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "e30." + payload + "."
    }

    @Test func anAnonymousUserLinksAppleThenSignsInWithItAgain() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let trial = try await auth.signInAnonymously()
            let hashedNonce = SHA256.hash(data: Array("n-1".utf8)).map { String(format: "%02x", $0) }.joined()
            let apple = ProviderCredential.apple(
                idToken: Self.token(#"{"sub":"001.apple","email":"shaker@privaterelay.appleid.com","email_verified":"true","nonce":"\#(hashedNonce)"}"#),
                rawNonce: "n-1")
            let linked = try await auth.link(with: apple)
            #expect(linked.uid == trial.uid)
            #expect(!linked.isAnonymous)
            #expect(linked.providerIDs.contains("apple.com"))
            #expect(linked.email == "shaker@privaterelay.appleid.com")

            let second = ProviderCredential.apple(idToken: Self.token(#"{"sub":"002.apple"}"#), rawNonce: nil)
            let relink = await #expect(throws: AuthError.self) { try await auth.link(with: second) }
            #expect(relink?.code == .providerAlreadyLinked)

            try auth.signOut()
            let again = try await auth.signIn(with: apple)
            #expect(again.uid == trial.uid, "the trial user's uid, and so their data, stays")

            try auth.signOut()
            _ = try await auth.signInAnonymously()
            let taken = await #expect(throws: AuthError.self) { try await auth.link(with: apple) }
            #expect(taken?.code == .credentialAlreadyInUse)
            #expect(taken?.email == "shaker@privaterelay.appleid.com")
            #expect(auth.currentUser?.isAnonymous == true, "the refused link changed nobody")
        }
    }

    @Test func aProviderEmailThatAnotherAccountHasIsATypedError() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let gus = try await auth.signUp(email: "gus@example.com", password: "secret12")
            try auth.signOut()
            // Gus proved his address; an account whose email nobody verified would be claimed by the provider instead.
            #expect(try await adminAuthCall(server, "accounts:update", ["localId": gus.uid, "emailVerified": true]).0 == 200)
            let google = ProviderCredential.google(idToken: Self.token(#"{"sub":"g-9","email":"gus@example.com","email_verified":true}"#))
            let refused = await #expect(throws: AuthError.self) { try await auth.signIn(with: google) }
            #expect(refused?.code == .accountExistsWithDifferentCredential)
            #expect(refused?.email == "gus@example.com")
            #expect(auth.currentUser == nil)

            // An anonymous user linking it gets the link refused the same way, as a typed error.
            let trial = try await auth.signInAnonymously()
            let inUse = await #expect(throws: AuthError.self) { try await auth.link(with: google) }
            #expect(inUse?.code == .emailAlreadyInUse)
            #expect(inUse?.email == "gus@example.com")
            #expect(auth.currentUser?.uid == trial.uid && auth.currentUser?.isAnonymous == true)
            try auth.signOut()

            let wrongNonce = ProviderCredential.apple(idToken: Self.token(#"{"sub":"a-2","nonce":"x"}"#), rawNonce: "y")
            let invalid = await #expect(throws: AuthError.self) { try await auth.signIn(with: wrongNonce) }
            #expect(invalid?.code == .invalidCredential)
            #expect(invalid?.serverCode == "MISSING_OR_INVALID_NONCE")
        }
    }

    @Test func unlinkingAProviderFreesItsAccount() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let first = try await auth.signInAnonymously()
            let google = ProviderCredential.google(idToken: Self.token(#"{"sub":"g-unlink"}"#))
            try await auth.link(with: google)
            let missing = await #expect(throws: AuthError.self) { try await auth.unlink(providerID: "apple.com") }
            #expect(missing?.code == .noSuchProvider)
            let unlinked = try await auth.unlink(providerID: "google.com")
            #expect(!unlinked.providerIDs.contains("google.com"))
            #expect(auth.currentUser?.providerIDs.contains("google.com") == false)

            // The Google account is free: signing in with it now makes a new user.
            try auth.signOut()
            let fresh = try await auth.signIn(with: google)
            #expect(fresh.uid != first.uid)
        }
    }
}
