extension IdentityToolkit {
    /// A linked sign-in provider of a user (`providerUserInfo`).
    public struct ProviderUserInfo: Codable, Sendable, Hashable {
        /// `password`, `phone`, `google.com`, `apple.com`, or a custom provider's id.
        public var providerId: String
        /// The user's id at the provider (the email for `password`, the number for `phone`, the `sub` for an IdP).
        public var rawId: String
        /// The provider's federated id; the same as ``rawId`` when the request gave none.
        public var federatedId: String?
        /// The email the provider gave.
        public var email: String?
        /// The name the provider gave.
        public var displayName: String?
        /// The picture URL the provider gave.
        public var photoUrl: String?
        /// The phone number the provider gave.
        public var phoneNumber: String?

        /// A provider entry.
        public init(
            providerId: String, rawId: String, federatedId: String? = nil, email: String? = nil, displayName: String? = nil,
            photoUrl: String? = nil, phoneNumber: String? = nil
        ) {
            self.providerId = providerId
            self.rawId = rawId
            self.federatedId = federatedId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
        }
    }

    /// `accounts:update` (`setAccountInfo`): the account's public fields after the change and, when the change
    /// renewed the session, its new tokens. Applying an emailed code answers with the first four fields only.
    public struct SetAccountInfoResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#SetAccountInfoResponse`.
        public var kind: String? = "identitytoolkit#SetAccountInfoResponse"
        /// The account's uid.
        public var localId: String?
        /// The account's email.
        public var email: String?
        /// The account's display name.
        public var displayName: String?
        /// The account's photo URL.
        public var photoUrl: String?
        /// Whether the email is verified.
        public var emailVerified: Bool?
        /// The linked providers.
        public var providerUserInfo: [ProviderUserInfo]?
        /// A placeholder (never a hash) present when the account has a password.
        public var passwordHash: String?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// An answer with the given fields (nil ones are left out).
        public init(
            localId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil, emailVerified: Bool? = nil,
            providerUserInfo: [ProviderUserInfo]? = nil, passwordHash: String? = nil, tokens: SessionTokens? = nil
        ) {
            self.localId = localId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.emailVerified = emailVerified
            self.providerUserInfo = providerUserInfo
            self.passwordHash = passwordHash
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }
    }

    /// `accounts:sendOobCode` (`getOobConfirmationCode`): the code was sent; with admin privilege and
    /// `returnOobLink`, the code and link themselves.
    public struct GetOobConfirmationCodeResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#GetOobConfirmationCodeResponse`.
        public var kind: String? = "identitytoolkit#GetOobConfirmationCodeResponse"
        /// The address the code went to.
        public var email: String?
        /// The code (admin `returnOobLink` only).
        public var oobCode: String?
        /// The link carrying the code (admin `returnOobLink` only).
        public var oobLink: String?

        /// An answer with the given fields (nil ones are left out).
        public init(email: String?, oobCode: String? = nil, oobLink: String? = nil) {
            self.email = email
            self.oobCode = oobCode
            self.oobLink = oobLink
        }
    }

    /// `accounts:resetPassword`: what an emailed code is for (checking it) or did (a password reset).
    public struct ResetPasswordResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#ResetPasswordResponse`.
        public var kind: String? = "identitytoolkit#ResetPasswordResponse"
        /// The code's purpose, as sent (an unknown one from a newer server stays readable as text).
        public var requestType: String?
        /// The account's address (absent for a sign-in link).
        public var email: String?
        /// The address an email change moves to.
        public var newEmail: String?

        /// An answer for a code of `requestType`.
        public init(requestType: OobRequestType, email: String?, newEmail: String? = nil) {
            self.requestType = requestType.rawValue
            self.email = email
            self.newEmail = newEmail
        }
    }

    /// `accounts:delete`.
    public struct DeleteAccountResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#DeleteAccountResponse`.
        public var kind: String? = "identitytoolkit#DeleteAccountResponse"

        /// The answer.
        public init() {}
    }
}

extension IdentityToolkit {
    /// One account as `accounts:lookup`, `batchGet` and `query` describe it (`UserInfo`).
    public struct UserInfo: Codable, Sendable, Hashable {
        /// The uid.
        public var localId: String
        /// The email, lower-cased.
        public var email: String?
        /// Whether the email is verified.
        public var emailVerified: Bool?
        /// The display name.
        public var displayName: String?
        /// The photo URL.
        public var photoUrl: String?
        /// The phone number (E.164).
        public var phoneNumber: String?
        /// A placeholder (never the hash) present when the account has a password.
        public var passwordHash: String?
        /// A placeholder (never the salt) present when the account has a password.
        public var salt: String?
        /// When the password was last set, in milliseconds since 1970.
        public var passwordUpdatedAt: Double?
        /// Tokens issued before this time (seconds since 1970, as a decimal string) are revoked.
        public var validSince: String?
        /// Whether the account is disabled.
        public var disabled: Bool?
        /// When the account was created, in milliseconds since 1970, as a decimal string.
        public var createdAt: String?
        /// When the user last signed in, in milliseconds since 1970, as a decimal string.
        public var lastLoginAt: String?
        /// When the user's tokens were last refreshed (RFC 3339).
        public var lastRefreshAt: String?
        /// The custom claims as JSON text (absent when there are none).
        public var customAttributes: String?
        /// True for an account a custom token made.
        public var customAuth: Bool?
        /// True once the user signed in with an email link.
        public var emailLinkSignin: Bool?
        /// The account's first email, kept after an email change.
        public var initialEmail: String?
        /// The linked providers.
        public var providerUserInfo: [ProviderUserInfo]?

        /// An account with only its uid; set the other fields as the account has them.
        public init(localId: String) { self.localId = localId }
    }

    /// `accounts:lookup` (`getAccountInfo`).
    public struct GetAccountInfoResponse: Codable, Sendable, Hashable {
        /// `identitytoolkit#GetAccountInfoResponse`.
        public var kind: String? = "identitytoolkit#GetAccountInfoResponse"
        /// The accounts found; absent when none was.
        public var users: [UserInfo]?

        /// The answer listing `users` (the field is left out when it is empty, as Firebase does).
        public init(users: [UserInfo]) { self.users = users.isEmpty ? nil : users }
    }
}
