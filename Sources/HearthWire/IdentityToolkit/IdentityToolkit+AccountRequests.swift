extension IdentityToolkit {
    /// A `providerUserInfo` entry as admin requests send it (an import, `linkProviderUserInfo`); ``ProviderUserInfo``
    /// is the answers' form.
    public struct ProviderUserInfoInput: Codable, Sendable, Equatable {
        /// `google.com`, `apple.com`, or a custom provider's id.
        public var providerId: String?
        /// The user's id at the provider.
        public var rawId: String?
        /// The provider's federated id (``rawId`` when absent).
        public var federatedId: String?
        /// The email the provider gave.
        public var email: String?
        /// The name the provider gave.
        public var displayName: String?
        /// The picture URL the provider gave.
        public var photoUrl: String?
        /// The phone number the provider gave.
        public var phoneNumber: String?

        /// A request with the given fields; the others are absent.
        public init(
            providerId: String? = nil, rawId: String? = nil, federatedId: String? = nil, email: String? = nil, displayName: String? = nil,
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

    /// A provider account a lookup asks for (`federatedUserId`).
    public struct FederatedUserIdentifier: Codable, Sendable, Equatable {
        /// The provider's id (`google.com`).
        public var providerId: String?
        /// The user's id at the provider.
        public var rawId: String?

        /// A request with the given fields; the others are absent.
        public init(providerId: String? = nil, rawId: String? = nil) {
            self.providerId = providerId
            self.rawId = rawId
        }
    }

    /// `accounts:lookup` (`getAccountInfo`): the user of ``idToken``, or (admin callers) the accounts with these uids,
    /// emails, numbers or provider accounts.
    public struct GetAccountInfoRequest: Codable, Sendable, Equatable {
        /// The signed-in user's ID token.
        public var idToken: String?
        /// Uids to look up.
        public var localId: [String]?
        /// Emails to look up.
        public var email: [String]?
        /// Phone numbers to look up.
        public var phoneNumber: [String]?
        /// Provider accounts to look up.
        public var federatedUserId: [FederatedUserIdentifier]?

        /// A request with the given fields; the others are absent.
        public init(
            idToken: String? = nil, localId: [String]? = nil, email: [String]? = nil, phoneNumber: [String]? = nil,
            federatedUserId: [FederatedUserIdentifier]? = nil
        ) {
            self.idToken = idToken
            self.localId = localId
            self.email = email
            self.phoneNumber = phoneNumber
            self.federatedUserId = federatedUserId
        }
    }

    /// `accounts:update` (`setAccountInfo`): changes to the user of ``idToken`` or (admin callers) of ``localId``; or,
    /// with only ``oobCode``, an emailed code to apply.
    public struct SetAccountInfoRequest: Codable, Sendable, Equatable {
        /// The account to change (admin callers, without ``idToken``).
        public var localId: String?
        /// A new email.
        public var email: String?
        /// A new password (at least 6 characters).
        public var password: String?
        /// A new profile name.
        public var displayName: String?
        /// A new picture URL.
        public var photoUrl: String?
        /// A new E.164 number (admin callers).
        public var phoneNumber: String?
        /// Whether the email counts as verified (admin callers).
        public var emailVerified: Bool?
        /// Disable or enable the account (admin callers).
        public var disableUser: Bool?
        /// Custom claims as a JSON object's text (admin callers; `{}` removes them).
        public var customAttributes: String?
        /// Seconds since 1970 before which the account's tokens are revoked (admin callers).
        public var validSince: Int64?
        /// When the account was made, in milliseconds (admin callers, migrations).
        public var createdAt: Int64?
        /// When the account last signed in, in milliseconds (admin callers, migrations).
        public var lastLoginAt: Int64?
        /// Attributes to remove: `DISPLAY_NAME`, `PHOTO_URL`, `PASSWORD`, `EMAIL`.
        public var deleteAttribute: [String]?
        /// Providers to unlink (`phone`, `password`, `google.com`, …).
        public var deleteProvider: [String]?
        /// A provider to link (admin callers).
        public var linkProviderUserInfo: ProviderUserInfoInput?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// An emailed code to apply (verify an email, change or recover it).
        public var oobCode: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?
        /// ``photoUrl`` as some clients spell it (read when ``photoUrl`` is absent).
        public var photoURL: String?

        /// A request with the given fields; the others are absent.
        public init(
            localId: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil, photoUrl: String? = nil,
            phoneNumber: String? = nil, emailVerified: Bool? = nil, disableUser: Bool? = nil, customAttributes: String? = nil,
            validSince: Int64? = nil, createdAt: Int64? = nil, lastLoginAt: Int64? = nil, deleteAttribute: [String]? = nil,
            deleteProvider: [String]? = nil, linkProviderUserInfo: ProviderUserInfoInput? = nil, idToken: String? = nil,
            oobCode: String? = nil, returnSecureToken: Bool? = nil, photoURL: String? = nil
        ) {
            self.localId = localId
            self.email = email
            self.password = password
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
            self.emailVerified = emailVerified
            self.disableUser = disableUser
            self.customAttributes = customAttributes
            self.validSince = validSince
            self.createdAt = createdAt
            self.lastLoginAt = lastLoginAt
            self.deleteAttribute = deleteAttribute
            self.deleteProvider = deleteProvider
            self.linkProviderUserInfo = linkProviderUserInfo
            self.idToken = idToken
            self.oobCode = oobCode
            self.returnSecureToken = returnSecureToken
            self.photoURL = photoURL
        }
    }

    /// `accounts:delete` (`deleteAccount`): the user of ``idToken``, or (admin callers) ``localId``.
    public struct DeleteAccountRequest: Codable, Sendable, Equatable {
        /// The signed-in user's ID token.
        public var idToken: String?
        /// The account to delete (admin callers).
        public var localId: String?

        /// A request with the given fields; the others are absent.
        public init(idToken: String? = nil, localId: String? = nil) {
            self.idToken = idToken
            self.localId = localId
        }
    }

    /// `accounts:sendOobCode` (`getOobConfirmationCode`): an emailed action link to make and send (or return).
    public struct GetOobConfirmationCodeRequest: Codable, Sendable, Equatable {
        /// What the link is for: an ``OobRequestType`` raw value, kept as sent (an unknown one is refused by name).
        public var requestType: String?
        /// The account's address (a reset, a sign-in link, or an admin's verification).
        public var email: String?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// The address an email change moves to.
        public var newEmail: String?
        /// Where the action page sends the user afterwards.
        public var continueUrl: String?
        /// Whether the app opens the link itself (sign-in links).
        public var canHandleCodeInApp: Bool?
        /// The hosting domain the link should use.
        public var linkDomain: String?
        /// Answer with the link instead of mailing it (admin callers).
        public var returnOobLink: Bool?

        /// A request with the given fields; the others are absent.
        public init(
            requestType: String? = nil, email: String? = nil, idToken: String? = nil, newEmail: String? = nil, continueUrl: String? = nil,
            canHandleCodeInApp: Bool? = nil, linkDomain: String? = nil, returnOobLink: Bool? = nil
        ) {
            self.requestType = requestType
            self.email = email
            self.idToken = idToken
            self.newEmail = newEmail
            self.continueUrl = continueUrl
            self.canHandleCodeInApp = canHandleCodeInApp
            self.linkDomain = linkDomain
            self.returnOobLink = returnOobLink
        }

        /// A request for a link of `type`.
        public init(
            type: OobRequestType, email: String? = nil, idToken: String? = nil, newEmail: String? = nil, continueUrl: String? = nil
        ) {
            self.init(requestType: type.rawValue, email: email, idToken: idToken, newEmail: newEmail, continueUrl: continueUrl)
        }

        /// ``requestType`` as a known ``OobRequestType``; nil when absent or unknown.
        public var type: OobRequestType? { requestType.flatMap(OobRequestType.init(rawValue:)) }
    }

    /// `accounts:resetPassword`: an emailed code to read (without ``newPassword``) or a reset code to use.
    public struct ResetPasswordRequest: Codable, Sendable, Equatable {
        /// The emailed code.
        public var oobCode: String?
        /// The new password (at least 6 characters).
        public var newPassword: String?

        /// A request with the given fields; the others are absent.
        public init(oobCode: String? = nil, newPassword: String? = nil) {
            self.oobCode = oobCode
            self.newPassword = newPassword
        }
    }
}
