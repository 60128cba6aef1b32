import Foundation
import HearthWire
import Synchronization

extension Auth {
    // MARK: Re-authentication

    // A server outside `--dev` allows a password or email change and account deletion only within five minutes of a
    // sign-in (`.requiresRecentLogin` after that), as Firebase does. Re-authenticating proves the user is still there
    // without signing out: the session keeps going with fresh tokens, and auth-state observers see no change.

    /// Confirms the current user with their password, for a change that needs a recent sign-in.
    ///
    /// Throws ``AuthError`` `.userMismatch` when the email belongs to another account, `.wrongPassword`,
    /// `.notSignedIn`.
    @discardableResult
    public func reauthenticate(email: String, password: String) async throws -> User {
        try await reauthenticate { () async throws -> IdentityToolkit.SignInWithPasswordResponse in
            try await client.call(
                "signInWithPassword", IdentityToolkit.SignInWithPasswordRequest(email: email, password: password, returnSecureToken: true))
        }
    }

    /// Confirms the current user with an identity provider's credential (Sign in with Apple, Google)
    /// linked to them. Never makes an account.
    ///
    /// Throws ``AuthError`` `.userMismatch` when the provider account is linked to another user or
    /// to none, `.invalidCredential`, `.notSignedIn`.
    @discardableResult
    public func reauthenticate(with credential: ProviderCredential) async throws -> User {
        try await reauthenticate {
            var body = Self.idpBody(credential, idToken: nil)
            body.autoCreate = false
            let answer: IdentityToolkit.SignInWithIdpResponse = try await client.call("signInWithIdp", body)
            try Self.checkConfirmation(answer)
            return answer
        }
    }

    /// Confirms the current user with an SMS code sent to their phone number
    /// (``sendPhoneVerificationCode(phoneNumber:)``). Never makes an account.
    ///
    /// Throws ``AuthError`` `.userMismatch` when the number belongs to another account or to none,
    /// `.invalidVerificationCode`, `.notSignedIn`.
    @discardableResult
    public func reauthenticate(verificationID: String, code: String) async throws -> User {
        try await reauthenticate { () async throws -> IdentityToolkit.SignInWithPhoneNumberResponse in
            try await client.call(
                "signInWithPhoneNumber", IdentityToolkit.SignInWithPhoneNumberRequest(sessionInfo: verificationID, code: code, operation: "REAUTH"))
        }
    }

    /// Signs in with `signIn`'s credential, and keeps its tokens only if they are the current user's.
    private func reauthenticate(_ signIn: () async throws -> some IdentityToolkit.SessionAnswer) async throws -> User {
        guard let (uid, epoch) = state.withLock({ s in s.session.map { ($0.user.uid, s.epoch) } }) else { throw AuthError.notSignedIn }
        let mismatch = AuthError(code: .userMismatch, message: "The credential does not belong to the signed-in user.")
        let answer: any IdentityToolkit.SessionAnswer
        do {
            answer = try await signIn()
        } catch let error as AuthError where error.code == .userNotFound {
            throw mismatch
        }
        guard answer.localId == uid else { throw mismatch }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }
}
