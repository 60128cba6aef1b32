import Foundation
import Synchronization
import Testing

@testable import Hearth

/// A server outside `--dev` allows password and email changes and deletion only soon after a sign-in. The SDK's
/// `reauthenticate` proves the user again without signing out.
@Suite("Auth re-authentication (live)")
struct ReauthenticateTests {
    @Test func aPasswordChangeLongAfterSignInNeedsTheOldPasswordAgain() async throws {
        try await withAuthStorageServer(recentSignInWindow: 300) { live in
            let auth = live.auth()
            let user = try await auth.signUp(email: "ann@example.com", password: "secret12")
            _ = try await live.auth().signUp(email: "bob@example.com", password: "secret34")
            let states = Collected<String?>()
            let watching = Task {
                for await state in auth.authStateChanges { states.items.withLock { $0.append(state?.uid) } }
            }
            defer { watching.cancel() }
            await expectEventually("the observer has the signed-in user") { !states.all.isEmpty }

            live.serverClock.advance(by: 301)
            let tooOld = await #expect(throws: AuthError.self) { try await auth.updatePassword("secret56") }
            #expect(tooOld?.code == .requiresRecentLogin)

            let wrongUser = await #expect(throws: AuthError.self) { try await auth.reauthenticate(email: "bob@example.com", password: "secret34") }
            #expect(wrongUser?.code == .userMismatch)
            let nobody = await #expect(throws: AuthError.self) { try await auth.reauthenticate(email: "eve@example.com", password: "secret34") }
            #expect(nobody?.code == .userMismatch)
            let wrongPassword = await #expect(throws: AuthError.self) { try await auth.reauthenticate(email: "ann@example.com", password: "nope123") }
            #expect(wrongPassword?.code == .wrongPassword)
            #expect(auth.currentUser?.uid == user.uid)

            let again = try await auth.reauthenticate(email: "ann@example.com", password: "secret12")
            #expect(again.uid == user.uid)
            try await auth.updatePassword("secret56")
            let seen = states.all
            let onlyAnn = seen.allSatisfy { $0 == user.uid }
            #expect(!seen.isEmpty && onlyAnn, "observers never saw a sign-out")
            try auth.signOut()
            #expect(try await auth.signIn(email: "ann@example.com", password: "secret56").uid == user.uid)
            try auth.signOut()
            let signedOut = await #expect(throws: AuthError.self) { try await auth.reauthenticate(email: "ann@example.com", password: "secret56") }
            #expect(signedOut?.code == .notSignedIn)
        }
    }

    @Test func aProviderOrPhoneUserReauthenticatesTheirOwnWay() async throws {
        try await withAuthStorageServer(recentSignInWindow: 300) { live in
            let auth = live.auth()
            let apple = ProviderCredential.apple(
                idToken: AuthProviderTests.token(#"{"sub":"001.apple","email":"a@privaterelay.appleid.com","email_verified":"true"}"#), rawNonce: nil)
            _ = try await auth.signIn(with: apple)
            live.serverClock.advance(by: 400)
            let tooOld = await #expect(throws: AuthError.self) { try await auth.deleteUser() }
            #expect(tooOld?.code == .requiresRecentLogin)
            let stranger = ProviderCredential.apple(idToken: AuthProviderTests.token(#"{"sub":"999.apple"}"#), rawNonce: nil)
            let mismatch = await #expect(throws: AuthError.self) { try await auth.reauthenticate(with: stranger) }
            #expect(mismatch?.code == .userMismatch)
            let (status, found) = try await adminAuthCall(live, "accounts:lookup", ["federatedUserId": [["providerId": "apple.com", "rawId": "999.apple"]]])
            #expect(status == 200 && found["users"] == nil, "re-authenticating made no account")
            try await auth.reauthenticate(with: apple)
            try await auth.deleteUser()
            #expect(auth.currentUser == nil)

            let phone = "+15555550111"
            let phoneUser = try await auth.signIn(verificationID: try await auth.sendPhoneVerificationCode(phoneNumber: phone), code: try await live.smsCode(for: phone))
            live.serverClock.advance(by: 400)
            let changeEmail = await #expect(throws: AuthError.self) { try await auth.updateEmail("p@example.com") }
            #expect(changeEmail?.code == .requiresRecentLogin)
            let other = "+15555550222"
            let otherID = try await auth.sendPhoneVerificationCode(phoneNumber: other)
            let noAccount = await #expect(throws: AuthError.self) { try await auth.reauthenticate(verificationID: otherID, code: try await live.smsCode(for: other)) }
            #expect(noAccount?.code == .userMismatch)
            let id = try await auth.sendPhoneVerificationCode(phoneNumber: phone)
            #expect(try await auth.reauthenticate(verificationID: id, code: try await live.smsCode(for: phone)).uid == phoneUser.uid)
            #expect(try await auth.updateEmail("p@example.com").email == "p@example.com")
        }
    }
}

/// A refresh that began with the session's old refresh token (the database's own, say) and ends after a password
/// change or a re-authentication gave the session new tokens.
@Suite("Auth refresh overtaken by new tokens (live)")
struct OvertakenRefreshTests {
    @Test func aLateRefreshKeepsTheNewerTokensAndTheSession() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            try await auth.signUp(email: "rae@example.com", password: "secret12")
            let (revoked, epoch) = try #require(auth.state.withLock { s in s.session.map { ($0.refreshToken, s.epoch) } })

            // A password change revokes the old refresh token: its late answer is TOKEN_EXPIRED, which must not sign
            // out the session that already has the new tokens.
            live.serverClock.advance(by: 2)
            try await auth.updatePassword("secret34")
            let afterChange = try #require(try await auth.idToken())
            let id = auth.state.withLock { s in s.makeID() }
            #expect(try await auth.refresh(revoked, epoch: epoch, id: id) == afterChange)
            #expect(auth.currentUser != nil)

            // A re-authentication leaves the previous refresh token valid: its late answer must not replace the
            // newer tokens either.
            let previous = try #require(auth.state.withLock { s in s.session?.refreshToken })
            try await auth.reauthenticate(email: "rae@example.com", password: "secret34")
            let afterReauth = try #require(auth.state.withLock { s in s.session })
            live.serverClock.advance(by: 2)
            let lateID = auth.state.withLock { s in s.makeID() }
            #expect(try await auth.refresh(previous, epoch: epoch, id: lateID) == afterReauth.idToken)
            let kept = auth.state.withLock { s in s.session?.refreshToken }
            #expect(kept == afterReauth.refreshToken)
        }
    }
}
