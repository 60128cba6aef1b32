import Foundation
import HearthWire

/// What an emailed code (the `oobCode` of an action link) is for, read without using it up
/// (Firebase's `ActionCodeInfo`). An app that handles action links itself shows it before
/// applying the code: "Set a new password for ann@example.com".
public struct ActionCodeInfo: Sendable, Hashable {
    /// The kind of link.
    public enum Operation: String, Sendable, Hashable {
        /// ``Auth/confirmPasswordReset(code:newPassword:)``.
        case passwordReset = "PASSWORD_RESET"
        /// ``Auth/applyActionCode(_:)`` confirms the address.
        case verifyEmail = "VERIFY_EMAIL"
        /// ``Auth/applyActionCode(_:)`` makes ``ActionCodeInfo/email`` the account's address.
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        /// ``Auth/applyActionCode(_:)`` undoes an email change: ``ActionCodeInfo/email`` is the address it restores.
        case recoverEmail = "RECOVER_EMAIL"
        /// ``Auth/signIn(email:link:)``.
        case emailSignIn = "EMAIL_SIGNIN"
    }

    /// What using the code will do.
    public var operation: Operation
    /// The address the code acts on: the account's for a password reset or verification, the new one for an
    /// email change, the restored one for a recovery; nil for a sign-in link (the app knows the address).
    public var email: String?
    /// For an email change: the address the account has now. For a recovery: the address being undone.
    public var previousEmail: String?
}

extension Auth {
    /// What `code` is for, without using it up.
    ///
    /// Throws ``AuthError`` `.invalidActionCode` (unknown, used or expired).
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let answer: IdentityToolkit.ResetPasswordResponse = try await client.call(
            "resetPassword", IdentityToolkit.ResetPasswordRequest(oobCode: code))
        guard let operation = answer.requestType.flatMap(ActionCodeInfo.Operation.init(rawValue:)) else {
            throw AuthError.invalidResponse(status: 200)
        }
        // The server names an email change's addresses by the account (email = now, newEmail = after) and a
        // recovery's by the change it undoes (email = restored, newEmail = undone).
        return operation == .verifyAndChangeEmail
            ? ActionCodeInfo(operation: operation, email: answer.newEmail, previousEmail: answer.email)
            : ActionCodeInfo(operation: operation, email: answer.email, previousEmail: answer.newEmail)
    }
}
