import HearthCore
import HearthWire

/// An auth service answer read as the JSON the controller writes for it, so a test asserts on the wire fields
/// (`answer["idToken"]`) whether the service returns a typed answer or, for the admin endpoints, a `JSONValue`.
protocol WireAnswer {
    /// The answer as JSON.
    var wire: JSONValue { get }
}

extension WireAnswer {
    /// A top-level field of ``wire``.
    subscript(_ key: String) -> JSONValue? { wire[key] }
}

extension WireAnswer where Self: Encodable {
    var wire: JSONValue {
        // Encoding these answers cannot fail: they hold strings, booleans and arrays of them.
        try! JSONValueEncoder().encode(self)
    }
}

extension JSONValue: WireAnswer {
    var wire: JSONValue { self }
}

extension IdentityToolkit.SignUpResponse: WireAnswer {}
extension IdentityToolkit.SignInWithPasswordResponse: WireAnswer {}
extension IdentityToolkit.SignInWithCustomTokenResponse: WireAnswer {}
extension IdentityToolkit.SignInWithEmailLinkResponse: WireAnswer {}
extension IdentityToolkit.SignInWithPhoneNumberResponse: WireAnswer {}
extension IdentityToolkit.SignInWithIdpResponse: WireAnswer {}
extension IdentityToolkit.SendVerificationCodeResponse: WireAnswer {}
extension IdentityToolkit.RefreshTokenResponse: WireAnswer {}
extension IdentityToolkit.SetAccountInfoResponse: WireAnswer {}
extension IdentityToolkit.GetOobConfirmationCodeResponse: WireAnswer {}
extension IdentityToolkit.ResetPasswordResponse: WireAnswer {}
extension IdentityToolkit.DeleteAccountResponse: WireAnswer {}
extension IdentityToolkit.GetAccountInfoResponse: WireAnswer {}
extension IdentityToolkit.BatchDeleteAccountsResponse: WireAnswer {}
extension IdentityToolkit.UploadAccountResponse: WireAnswer {}
extension IdentityToolkit.DownloadAccountResponse: WireAnswer {}
extension IdentityToolkit.QueryUserInfoResponse: WireAnswer {}
extension IdentityToolkit.CreateSessionCookieResponse: WireAnswer {}
extension IdentityToolkit.CreateAuthUriResponse: WireAnswer {}
extension IdentityToolkit.ProjectConfig: WireAnswer {}
extension IdentityToolkit.GetRecaptchaParamResponse: WireAnswer {}
extension IdentityToolkit.EmulatorOobCodes: WireAnswer {}
extension IdentityToolkit.EmulatorVerificationCodes: WireAnswer {}
