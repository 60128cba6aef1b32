import Foundation

/// Identity Toolkit v1 and Secure Token bodies, as the server sends and takes them.
enum AuthWire {
    /// A request body field.
    enum Value: Encodable, Sendable {
        case string(String)
        case bool(Bool)
        case strings([String])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let s): try container.encode(s)
            case .bool(let b): try container.encode(b)
            case .strings(let a): try container.encode(a)
            }
        }
    }

    typealias Body = [String: Value]

    /// What every sign-in answers (plus the optional extras of some endpoints).
    struct TokenResponse: Decodable, Sendable {
        var localId: String?
        var idToken: String?
        var refreshToken: String?
        var expiresIn: String?
        var isNewUser: Bool?
        /// `signInWithPhoneNumber` linking a number that belongs to someone else.
        var temporaryProof: String?
        var phoneNumber: String?
        /// `signInWithIdp` found an account with the provider's email and no link to it.
        var needConfirmation: Bool?
        var email: String?
        /// `signInWithIdp` with `returnIdpCredential`: a refused link (`FEDERATED_USER_ID_ALREADY_LINKED`,
        /// `EMAIL_EXISTS`), answered with status 200 and no session.
        var errorMessage: String?
    }

    /// `securetoken.googleapis.com/v1/token` (snake_case).
    struct RefreshResponse: Decodable, Sendable {
        var idToken: String
        var refreshToken: String
        var expiresIn: String
        var userID: String

        enum CodingKeys: String, CodingKey {
            case idToken = "id_token", refreshToken = "refresh_token", expiresIn = "expires_in", userID = "user_id"
        }
    }

    struct LookupResponse: Decodable, Sendable {
        var users: [UserInfo]?
    }

    struct ProviderInfo: Decodable, Sendable {
        var providerId: String
    }

    struct UserInfo: Decodable, Sendable {
        var localId: String
        var email: String?
        var emailVerified: Bool?
        var displayName: String?
        var photoUrl: String?
        var phoneNumber: String?
        var createdAt: String?
        var lastLoginAt: String?
        var customAuth: Bool?
        var providerUserInfo: [ProviderInfo]?

        var user: User {
            let providers = (providerUserInfo ?? []).map(\.providerId)
            func date(_ millis: String?) -> Date? { millis.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) } }
            return User(
                uid: localId, email: email, emailVerified: emailVerified ?? false, phoneNumber: phoneNumber, displayName: displayName,
                photoURL: photoUrl.flatMap { URL(string: $0) },
                isAnonymous: providers.isEmpty && email == nil && phoneNumber == nil && customAuth != true, providerIDs: providers,
                metadata: UserMetadata(creationDate: date(createdAt), lastSignInDate: date(lastLoginAt)))
        }
    }

    struct SendVerificationCodeResponse: Decodable, Sendable {
        var sessionInfo: String
    }

    struct ResetPasswordResponse: Decodable, Sendable {
        var email: String?
        var newEmail: String?
        var requestType: String?
    }

    struct Empty: Decodable, Sendable {}

    /// The Google error envelope.
    struct ErrorEnvelope: Decodable, Sendable {
        struct Detail: Decodable, Sendable {
            var code: Int?
            var message: String?
        }

        var error: Detail
    }
}
