import Foundation
import Testing

@testable import Hearth

/// Passwordless sign-in with emailed links, and an email change confirmed by its new address.
@Suite("Auth email links (live)")
struct AuthEmailLinkTests {
    @Test func aSignInLinkSignsInOnceAndAnAnonymousUserCanLinkOne() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            // The app's continue URL has its own query and a fragment; opening the mailed link leads there.
            try await auth.sendSignInLink(toEmail: "Eve@Example.com", continueURL: URL(string: "http://localhost/finish?mode=app#done")!)
            let mailed = try await live.oobLink(for: "eve@example.com", requestType: "EMAIL_SIGNIN")
            #expect(auth.isSignInLink(mailed))
            let link = try #require(try await live.redirectTarget(of: mailed))
            #expect(link.absoluteString.hasPrefix("http://localhost/finish?mode=app&mode=signIn"))
            #expect(link.fragment == "done")
            #expect(auth.isSignInLink(link))
            var wrapped = URLComponents(string: "https://app.example.com/open")!
            wrapped.queryItems = [URLQueryItem(name: "link", value: link.absoluteString)]
            #expect(auth.isSignInLink(wrapped.url!), "a deep link carrying the action link in `link`")
            #expect(!auth.isSignInLink(URL(string: "http://localhost/finish?mode=resetPassword&oobCode=x")!))
            #expect(!auth.isSignInLink(URL(string: "http://localhost/finish")!))

            let info = try await auth.checkActionCode(try #require(Auth.signInCode(in: link)))
            #expect(info == ActionCodeInfo(operation: .emailSignIn, email: nil, previousEmail: nil))
            let wrongAddress = await #expect(throws: AuthError.self) { try await auth.signIn(email: "mallory@example.com", link: link) }
            #expect(wrongAddress?.code == .invalidEmail)
            let user = try await auth.signIn(email: "eve@example.com", link: wrapped.url!)
            #expect(user.email == "eve@example.com")
            #expect(user.emailVerified)
            let reused = await #expect(throws: AuthError.self) { try await auth.signIn(email: "eve@example.com", link: link) }
            #expect(reused?.code == .invalidActionCode)
            let notALink = await #expect(throws: AuthError.self) { try await auth.signIn(email: "eve@example.com", link: URL(string: "http://localhost/")!) }
            #expect(notALink?.code == .invalidActionCode)
            try auth.signOut()

            // A trial user keeps the uid when linking an email link; another account's address is refused.
            let trial = try await auth.signInAnonymously()
            let finish = URL(string: "http://localhost/finish")!
            try await auth.sendSignInLink(toEmail: "eve@example.com", continueURL: finish)
            let taken = await #expect(throws: AuthError.self) {
                try await auth.link(email: "eve@example.com", link: try await live.oobLink(for: "eve@example.com", requestType: "EMAIL_SIGNIN"))
            }
            #expect(taken?.code == .emailAlreadyInUse)
            try await auth.sendSignInLink(toEmail: "trial@example.com", continueURL: finish)
            let linked = try await auth.link(email: "trial@example.com", link: try await live.oobLink(for: "trial@example.com", requestType: "EMAIL_SIGNIN"))
            #expect(linked.uid == trial.uid)
            #expect(linked.email == "trial@example.com" && !linked.isAnonymous)
            // A second email is an email change, not a link.
            try await auth.sendSignInLink(toEmail: "second@example.com", continueURL: finish)
            let second = await #expect(throws: AuthError.self) {
                try await auth.link(email: "second@example.com", link: try await live.oobLink(for: "second@example.com", requestType: "EMAIL_SIGNIN"))
            }
            #expect(second?.code == .providerAlreadyLinked)

            // A Google user whose account has the Google address takes the link's address instead (as an Apple
            // user with a relay address would), and the Google address gets a link that undoes it.
            try auth.signOut()
            let google = ProviderCredential.google(idToken: AuthProviderTests.token(#"{"sub":"g-77","email":"gail@gmail.test","email_verified":true}"#))
            let gail = try await auth.signIn(with: google)
            try await auth.sendSignInLink(toEmail: "gail2@example.com", continueURL: finish)
            let moved = try await auth.link(email: "gail2@example.com", link: try await live.oobLink(for: "gail2@example.com", requestType: "EMAIL_SIGNIN"))
            #expect(moved.uid == gail.uid && moved.email == "gail2@example.com")
            #expect(try await auth.checkActionCode(try await live.oobCode(for: "gail@gmail.test", requestType: "RECOVER_EMAIL")).operation == .recoverEmail)

            let badContinue = await #expect(throws: AuthError.self) {
                try await auth.sendSignInLink(toEmail: "eve@example.com", continueURL: URL(string: "ftp://example.com/x")!)
            }
            #expect(badContinue?.code == .invalidContinueURL)
        }
    }

    @Test func anEmailChangesOnlyOnceTheNewAddressConfirmsIt() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let user = try await auth.signUp(email: "old@example.com", password: "secret12")
            try await auth.sendEmailVerification(beforeUpdatingEmail: "new@example.com")
            #expect(try await auth.reload().email == "old@example.com", "nothing changes before the link is opened")
            let changeCode = try await live.oobCode(for: "old@example.com", requestType: "VERIFY_AND_CHANGE_EMAIL")
            let change = try await auth.checkActionCode(changeCode)
            #expect(change == ActionCodeInfo(operation: .verifyAndChangeEmail, email: "new@example.com", previousEmail: "old@example.com"))
            // A second later (tokens are revoked by the second), the link is opened.
            live.serverClock.advance(by: 2)
            try await auth.applyActionCode(changeCode)
            let used = await #expect(throws: AuthError.self) { try await auth.checkActionCode(changeCode) }
            #expect(used?.code == .invalidActionCode)
            let smsSession = try await auth.sendPhoneVerificationCode(phoneNumber: "+15555550999")
            let notEmailed = await #expect(throws: AuthError.self) { try await auth.checkActionCode(smsSession) }
            #expect(notEmailed?.code == .invalidActionCode, "an SMS session is no action code")
            // The old address got a link that undoes the change.
            let recovery = try await auth.checkActionCode(try await live.oobCode(for: "old@example.com", requestType: "RECOVER_EMAIL"))
            #expect(recovery == ActionCodeInfo(operation: .recoverEmail, email: "old@example.com", previousEmail: "new@example.com"))
            #expect(auth.currentUser == nil, "the change ends the account's sessions, as in Firebase")
            let wrong = await #expect(throws: AuthError.self) { try await auth.signIn(email: "old@example.com", password: "secret12") }
            #expect(wrong?.code == .userNotFound)
            let again = try await auth.signIn(email: "new@example.com", password: "secret12")
            #expect(again.uid == user.uid)
            #expect(again.emailVerified)

            _ = try await live.auth().signUp(email: "other@example.com", password: "secret12")
            let taken = await #expect(throws: AuthError.self) { try await auth.sendEmailVerification(beforeUpdatingEmail: "other@example.com") }
            #expect(taken?.code == .emailAlreadyInUse)
        }
    }
}
