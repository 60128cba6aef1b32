import HearthAuth
import HearthCore
import HearthWire

/// The service's operations called with a JSON body, read into the operation's typed request as the controller reads
/// it (``AuthError/decode(_:from:)``: a mistyped field is `INVALID_ARGUMENT`), so a test writes a request as the JSON
/// a client sends.
extension AuthService {
    func signUp(_ body: JSONValue, privileged: Bool) async throws -> IdentityToolkit.SignUpResponse {
        try await signUp(AuthError.decode(from: body), privileged: privileged)
    }

    func signInWithPassword(_ body: JSONValue, clientAddress: String? = nil) async throws -> IdentityToolkit.SignInWithPasswordResponse {
        try await signInWithPassword(AuthError.decode(from: body), clientAddress: clientAddress)
    }

    func lookup(_ body: JSONValue, privileged: Bool) async throws -> IdentityToolkit.GetAccountInfoResponse {
        try await lookup(AuthError.decode(from: body), privileged: privileged)
    }

    func update(_ body: JSONValue, privileged: Bool, linkBase: String? = nil) async throws -> IdentityToolkit.SetAccountInfoResponse {
        try await update(AuthError.decode(from: body), privileged: privileged, linkBase: linkBase)
    }

    func delete(_ body: JSONValue, privileged: Bool) async throws -> IdentityToolkit.DeleteAccountResponse {
        try await delete(AuthError.decode(from: body), privileged: privileged)
    }

    func sendOobCode(_ body: JSONValue, privileged: Bool, linkBase: String) async throws -> IdentityToolkit.GetOobConfirmationCodeResponse {
        try await sendOobCode(AuthError.decode(from: body), privileged: privileged, linkBase: linkBase)
    }

    func resetPassword(_ body: JSONValue) async throws -> IdentityToolkit.ResetPasswordResponse {
        try await resetPassword(AuthError.decode(from: body))
    }

    func signInWithEmailLink(_ body: JSONValue, linkBase: String? = nil) async throws -> IdentityToolkit.SignInWithEmailLinkResponse {
        try await signInWithEmailLink(AuthError.decode(from: body), linkBase: linkBase)
    }

    func sendVerificationCode(_ body: JSONValue) async throws -> IdentityToolkit.SendVerificationCodeResponse {
        try await sendVerificationCode(AuthError.decode(from: body))
    }

    func signInWithPhoneNumber(_ body: JSONValue) async throws -> IdentityToolkit.SignInWithPhoneNumberResponse {
        try await signInWithPhoneNumber(AuthError.decode(from: body))
    }

    func createAuthUri(_ body: JSONValue) async throws -> IdentityToolkit.CreateAuthUriResponse {
        try await createAuthUri(AuthError.decode(from: body))
    }

    func signInWithIdp(_ body: JSONValue) async throws -> IdentityToolkit.SignInWithIdpResponse {
        try await signInWithIdp(AuthError.decode(from: body))
    }

    func signInWithCustomToken(_ body: JSONValue) async throws -> IdentityToolkit.SignInWithCustomTokenResponse {
        try await signInWithCustomToken(AuthError.decode(from: body))
    }

    func batchDelete(_ body: JSONValue) async throws -> IdentityToolkit.BatchDeleteAccountsResponse {
        try await batchDelete(AuthError.decode(from: body))
    }

    func batchCreate(_ body: JSONValue) async throws -> IdentityToolkit.UploadAccountResponse {
        try await batchCreate(AuthError.decode(from: body))
    }

    func query(_ body: JSONValue) async throws -> IdentityToolkit.QueryUserInfoResponse {
        try await query(AuthError.decode(from: body))
    }

    func createSessionCookie(_ body: JSONValue) async throws -> IdentityToolkit.CreateSessionCookieResponse {
        try await createSessionCookie(AuthError.decode(from: body))
    }

    func downloadAccount(_ body: JSONValue) async throws -> IdentityToolkit.DownloadAccountResponse {
        try await downloadAccount(AuthError.decode(from: body))
    }
}
