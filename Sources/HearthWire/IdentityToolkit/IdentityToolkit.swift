/// The Identity Toolkit (`identitytoolkit.googleapis.com/v1`) and Secure Token (`securetoken.googleapis.com/v1`)
/// wire, as typed values shared by the server, which encodes them with ``JSONValueEncoder``, and the SDK, which
/// decodes them with Foundation's `JSONDecoder`.
///
/// Each answer is a `Codable` struct whose stored properties are its JSON fields in the order the server writes
/// them; a nil optional is a field the answer leaves out. Field names are Firebase's (`localId`, `expiresIn`),
/// so the synthesized coding is the wire format.
public enum IdentityToolkit {}

extension IdentityToolkit {
    /// An answer that starts or renews a session: its ID and refresh tokens (absent where the endpoint issued none,
    /// an admin-created account say).
    public protocol SessionAnswer: Sendable {
        /// The uid of the account signed in to (nil where the endpoint does not name it: read it from the ID token).
        var localId: String? { get }
        /// The signed ID token.
        var idToken: String? { get }
        /// The refresh token for Secure Token's `v1/token`.
        var refreshToken: String? { get }
        /// The ID token's lifetime in seconds, as a decimal string.
        var expiresIn: String? { get }
    }

    /// What an emailed action code is for: `sendOobCode`'s `requestType` and `resetPassword`'s answer.
    public enum OobRequestType: String, Codable, Sendable, Hashable, CaseIterable {
        /// A link that lets the user choose a new password.
        case passwordReset = "PASSWORD_RESET"
        /// A link that marks the account's email verified.
        case verifyEmail = "VERIFY_EMAIL"
        /// A link that changes the account's email once the new address confirms it.
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        /// A link that undoes an email change, mailed to the previous address.
        case recoverEmail = "RECOVER_EMAIL"
        /// A sign-in link (passwordless email sign-in).
        case emailSignIn = "EMAIL_SIGNIN"
    }
}
