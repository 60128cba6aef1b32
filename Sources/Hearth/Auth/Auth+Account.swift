public import Foundation
import HearthWire
import Synchronization

extension Auth {
    // MARK: Profile and credentials

    /// Changes the current user's display name and photo URL; nil leaves a field as it is, an
    /// empty `displayName` removes it, `removePhotoURL` removes the photo.
    @discardableResult
    public func updateProfile(displayName: String? = nil, photoURL: URL? = nil, removePhotoURL: Bool = false) async throws -> User {
        var removed: [String] = []
        var fields = IdentityToolkit.SetAccountInfoRequest()
        if let displayName {
            if displayName.isEmpty { removed.append("DISPLAY_NAME") } else { fields.displayName = displayName }
        }
        if removePhotoURL {
            removed.append("PHOTO_URL")
        } else if let photoURL {
            fields.photoUrl = photoURL.absoluteString
        }
        if !removed.isEmpty { fields.deleteAttribute = removed }
        return try await update(fields)
    }

    /// Changes the current user's email (it becomes unverified).
    ///
    /// Throws ``AuthError`` `.emailAlreadyInUse`, `.invalidEmail`, `.requiresRecentLogin`, …
    @discardableResult
    public func updateEmail(_ email: String) async throws -> User {
        try await update(IdentityToolkit.SetAccountInfoRequest(email: email))
    }

    /// Changes the current user's password. Other sessions of the user end; this one continues
    /// with the new tokens the server sends.
    @discardableResult
    public func updatePassword(_ password: String) async throws -> User {
        try await update(IdentityToolkit.SetAccountInfoRequest(password: password))
    }

    /// `accounts:update` with the user's token; adopts the new tokens the server sends when the
    /// change revoked the old ones.
    private func update(_ fields: IdentityToolkit.SetAccountInfoRequest) async throws -> User {
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SetAccountInfoResponse in
            var body = fields
            body.idToken = token
            body.returnSecureToken = true
            return try await client.call("update", body)
        }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    // MARK: Emailed codes

    /// Emails a password-reset link to `email`; its `oobCode` goes to ``confirmPasswordReset(code:newPassword:)``.
    public func sendPasswordReset(email: String) async throws {
        let _: IdentityToolkit.GetOobConfirmationCodeResponse = try await client.call(
            "sendOobCode", IdentityToolkit.GetOobConfirmationCodeRequest(type: .passwordReset, email: email))
    }

    /// The email address a password-reset code is for (the code stays valid).
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let answer: IdentityToolkit.ResetPasswordResponse = try await client.call(
            "resetPassword", IdentityToolkit.ResetPasswordRequest(oobCode: code))
        guard answer.requestType == IdentityToolkit.OobRequestType.passwordReset.rawValue, let email = answer.email else {
            throw AuthError(serverMessage: "INVALID_OOB_CODE", status: 400)
        }
        return email
    }

    /// Sets a new password with the code of a password-reset email. Existing sessions of that
    /// account end (sign in again with the new password).
    public func confirmPasswordReset(code: String, newPassword: String) async throws {
        let _: IdentityToolkit.ResetPasswordResponse = try await client.call(
            "resetPassword", IdentityToolkit.ResetPasswordRequest(oobCode: code, newPassword: newPassword))
    }

    /// Emails the current user a link that verifies their address; its `oobCode` goes to ``applyActionCode(_:)``.
    public func sendEmailVerification() async throws {
        _ = try await withToken { token -> IdentityToolkit.GetOobConfirmationCodeResponse in
            try await client.call(
                "sendOobCode", IdentityToolkit.GetOobConfirmationCodeRequest(type: .verifyEmail, idToken: token))
        }
    }

    /// Applies an emailed code (email verification or an email change); the current user is
    /// re-read afterwards if signed in.
    public func applyActionCode(_ code: String) async throws {
        let _: IdentityToolkit.SetAccountInfoResponse = try await client.call("update", IdentityToolkit.SetAccountInfoRequest(oobCode: code))
        if currentUser != nil { _ = try? await reload() }
    }

    // MARK: The account

    /// Re-reads the current user from the server (after changes made elsewhere). A user that
    /// was deleted or disabled is signed out (and the error thrown).
    @discardableResult
    public func reload() async throws -> User {
        guard currentUser != nil else { throw AuthError.notSignedIn }
        let epoch = state.withLock { $0.epoch }
        return try await refreshUser(epoch: epoch)
    }

    /// Deletes the current user's account and signs out.
    public func deleteUser() async throws {
        let (_, epoch) = try await withToken { token -> IdentityToolkit.DeleteAccountResponse in
            try await client.call("delete", IdentityToolkit.DeleteAccountRequest(idToken: token))
        }
        try end(ifEpoch: epoch)
    }
}
