import Foundation
@testable import Hearth
import Testing

/// Profile, email, password and account changes against a live server.
@Suite("Auth account (live)")
struct AuthAccountTests {
    @Test func profileUpdateIsSeenByReloadAndOtherSessions() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signUp(email: "hal@example.com", password: "secret12")
            let photo = URL(string: "https://example.com/hal.png")!
            let updated = try await auth.updateProfile(displayName: "Hal", photoURL: photo)
            #expect(updated.displayName == "Hal")
            #expect(updated.photoURL == photo)
            #expect(auth.currentUser?.displayName == "Hal")

            let other = server.auth()
            let elsewhere = try await other.signIn(email: "hal@example.com", password: "secret12")
            #expect(elsewhere.displayName == "Hal")
            #expect(elsewhere.photoURL == photo)

            // An empty name removes it; the photo stays unless removed.
            let cleared = try await auth.updateProfile(displayName: "")
            #expect(cleared.displayName == nil)
            #expect(cleared.photoURL == photo)
            let reloaded = try await other.reload()
            #expect(reloaded.displayName == nil)
            #expect(try await other.updateProfile(removePhotoURL: true).photoURL == nil)
        }
    }

    @Test func passwordResetWithTheEmailedCode() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signUp(email: "ivy@example.com", password: "old-secret")
            server.serverClock.advance(by: 2)

            let reader = server.auth()
            try await reader.sendPasswordReset(email: "ivy@example.com")
            let code = try await server.oobCode(for: "ivy@example.com", requestType: "PASSWORD_RESET")
            #expect(try await reader.verifyPasswordResetCode(code) == "ivy@example.com")
            #expect(try await reader.checkActionCode(code) == ActionCodeInfo(operation: .passwordReset, email: "ivy@example.com"))
            try await reader.confirmPasswordReset(code: code, newPassword: "new-secret")

            let old = await #expect(throws: AuthError.self) { try await reader.signIn(email: "ivy@example.com", password: "old-secret") }
            #expect(old?.code == .wrongPassword)
            let user = try await reader.signIn(email: "ivy@example.com", password: "new-secret")
            #expect(user.email == "ivy@example.com")

            // The code is used up.
            let reused = await #expect(throws: AuthError.self) { try await reader.confirmPasswordReset(code: code, newPassword: "other-secret") }
            #expect(reused?.code == .invalidActionCode)

            // The reset revoked the session started before it: its refresh fails and it ends.
            server.serverClock.advance(by: 2)
            let revoked = await #expect(throws: AuthError.self) { try await auth.idToken(forceRefresh: true) }
            #expect(revoked?.code == .userTokenExpired)
            #expect(auth.currentUser == nil)

            let unknown = await #expect(throws: AuthError.self) { try await reader.sendPasswordReset(email: "nobody@example.com") }
            #expect(unknown?.code == .userNotFound)
        }
    }

    @Test func passwordChangeKeepsThisSession() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let user = try await auth.signUp(email: "jon@example.com", password: "secret12")
            server.serverClock.advance(by: 2)
            try await auth.updatePassword("secret34")
            // The server revoked the old tokens and sent new ones, which this session now uses.
            server.serverClock.advance(by: 2)
            let token = try #require(try await auth.idToken(forceRefresh: true))
            #expect(decodeClaims(token)?["user_id"] as? String == user.uid)
            #expect(auth.currentUser?.uid == user.uid)

            let other = server.auth()
            #expect(try await other.signIn(email: "jon@example.com", password: "secret34").uid == user.uid)
            let weak = await #expect(throws: AuthError.self) { try await auth.updatePassword("1") }
            #expect(weak?.code == .weakPassword)
        }
    }

    @Test func emailChangeAndVerification() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signUp(email: "kim@example.com", password: "secret12")
            try await auth.sendEmailVerification()
            let code = try await server.oobCode(for: "kim@example.com", requestType: "VERIFY_EMAIL")
            try await auth.applyActionCode(code)
            #expect(auth.currentUser?.emailVerified == true)

            let changed = try await auth.updateEmail("kim.new@example.com")
            #expect(changed.email == "kim.new@example.com")
            #expect(changed.emailVerified == false)
            try auth.signOut()
            #expect(try await auth.signIn(email: "kim.new@example.com", password: "secret12").uid == changed.uid)

            let other = server.auth()
            try await other.signUp(email: "lea@example.com", password: "secret12")
            let taken = await #expect(throws: AuthError.self) { try await other.updateEmail("kim.new@example.com") }
            #expect(taken?.code == .emailAlreadyInUse)
        }
    }

    @Test func deletedUserIsSignedOutEverywhere() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signUp(email: "max@example.com", password: "secret12")
            let other = server.auth()
            try await other.signIn(email: "max@example.com", password: "secret12")

            try await auth.deleteUser()
            #expect(auth.currentUser == nil)
            let gone = await #expect(throws: AuthError.self) { try await auth.signIn(email: "max@example.com", password: "secret12") }
            #expect(gone?.code == .userNotFound)

            // The other session learns it at its next reload and ends.
            let reload = await #expect(throws: AuthError.self) { try await other.reload() }
            #expect(reload?.code == .userNotFound)
            #expect(other.currentUser == nil)
        }
    }
}
