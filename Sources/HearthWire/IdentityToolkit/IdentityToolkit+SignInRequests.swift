extension IdentityToolkit {
    /// `accounts:signUp` (`signupNewUser`): a new account, anonymous or with email and password; an admin's `create_user`
    /// with any attributes; or, with ``idToken``, that user gaining an email and password.
    public struct SignUpRequest: Codable, Sendable, Equatable {
        /// The uid to create (admin callers only).
        public var localId: String?
        /// The account's email.
        public var email: String?
        /// The account's password (at least 6 characters).
        public var password: String?
        /// The profile's name.
        public var displayName: String?
        /// The profile's picture URL (admin callers).
        public var photoUrl: String?
        /// An E.164 phone number (admin callers).
        public var phoneNumber: String?
        /// Whether the email counts as verified (admin callers).
        public var emailVerified: Bool?
        /// Whether the account starts disabled (admin callers).
        public var disabled: Bool?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?

        /// A request with the given fields; the others are absent.
        public init(
            localId: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil, photoUrl: String? = nil,
            phoneNumber: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil, idToken: String? = nil,
            returnSecureToken: Bool? = nil
        ) {
            self.localId = localId
            self.email = email
            self.password = password
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
            self.emailVerified = emailVerified
            self.disabled = disabled
            self.idToken = idToken
            self.returnSecureToken = returnSecureToken
        }
    }

    /// `accounts:signInWithPassword` (`verifyPassword`): an email and its password.
    public struct SignInWithPasswordRequest: Codable, Sendable, Equatable {
        /// The account's email.
        public var email: String?
        /// The password to check.
        public var password: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?

        /// A request with the given fields; the others are absent.
        public init(email: String? = nil, password: String? = nil, returnSecureToken: Bool? = nil) {
            self.email = email
            self.password = password
            self.returnSecureToken = returnSecureToken
        }
    }

    /// `accounts:signInWithCustomToken` (`verifyCustomToken`): a token an admin SDK minted.
    public struct SignInWithCustomTokenRequest: Codable, Sendable, Equatable {
        /// The custom token (a JWT, or its JSON payload in the emulator).
        public var token: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?

        /// A request with the given fields; the others are absent.
        public init(token: String? = nil, returnSecureToken: Bool? = nil) {
            self.token = token
            self.returnSecureToken = returnSecureToken
        }
    }

    /// `accounts:signInWithEmailLink` (`emailLinkSignin`): the code of an emailed sign-in link and its address; with
    /// ``idToken``, the address is linked to that user.
    public struct SignInWithEmailLinkRequest: Codable, Sendable, Equatable {
        /// The address the link was sent to.
        public var email: String?
        /// The link's code.
        public var oobCode: String?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?

        /// A request with the given fields; the others are absent.
        public init(email: String? = nil, oobCode: String? = nil, idToken: String? = nil, returnSecureToken: Bool? = nil) {
            self.email = email
            self.oobCode = oobCode
            self.idToken = idToken
            self.returnSecureToken = returnSecureToken
        }
    }

    /// `accounts:sendVerificationCode`: the number to text a code to.
    public struct SendVerificationCodeRequest: Codable, Sendable, Equatable {
        /// An E.164 phone number.
        public var phoneNumber: String?

        /// A request with the given fields; the others are absent.
        public init(phoneNumber: String? = nil) {
            self.phoneNumber = phoneNumber
        }
    }

    /// `accounts:signInWithPhoneNumber` (`verifyPhoneNumber`): an SMS code with its session, or a temporary proof with
    /// its number; with ``idToken``, the number is linked to that user.
    public struct SignInWithPhoneNumberRequest: Codable, Sendable, Equatable {
        /// What `sendVerificationCode` answered.
        public var sessionInfo: String?
        /// The texted code.
        public var code: String?
        /// The number a ``temporaryProof`` is for.
        public var phoneNumber: String?
        /// A proof a phone-link conflict answered with.
        public var temporaryProof: String?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// `REAUTH` to confirm the user without ever making an account; else absent.
        public var operation: String?

        /// A request with the given fields; the others are absent.
        public init(
            sessionInfo: String? = nil, code: String? = nil, phoneNumber: String? = nil, temporaryProof: String? = nil,
            idToken: String? = nil, operation: String? = nil
        ) {
            self.sessionInfo = sessionInfo
            self.code = code
            self.phoneNumber = phoneNumber
            self.temporaryProof = temporaryProof
            self.idToken = idToken
            self.operation = operation
        }
    }

    /// `accounts:signInWithIdp` (`verifyAssertion`): an identity provider's credential, or, with ``idToken``, that
    /// provider linked to the user.
    public struct SignInWithIdpRequest: Codable, Sendable, Equatable {
        /// The URI the provider redirected to (required, not checked).
        public var requestUri: String?
        /// A form with the provider's `id_token`, `providerId` and optional `nonce`.
        public var postBody: String?
        /// The signed-in user's ID token.
        public var idToken: String?
        /// Whether to answer with ID and refresh tokens (Hearth always does where the operation signs in).
        public var returnSecureToken: Bool?
        /// Answer a refused link with the credential in `errorMessage` instead of failing.
        public var returnIdpCredential: Bool?
        /// Whether an unknown provider account makes a new user (`false` when re-authenticating).
        public var autoCreate: Bool?

        /// A request with the given fields; the others are absent.
        public init(
            requestUri: String? = nil, postBody: String? = nil, idToken: String? = nil, returnSecureToken: Bool? = nil,
            returnIdpCredential: Bool? = nil, autoCreate: Bool? = nil
        ) {
            self.requestUri = requestUri
            self.postBody = postBody
            self.idToken = idToken
            self.returnSecureToken = returnSecureToken
            self.returnIdpCredential = returnIdpCredential
            self.autoCreate = autoCreate
        }
    }

    /// Secure Token `v1/token`: a refresh token to exchange for a new ID token (form-encoded or JSON, snake_case).
    public struct RefreshTokenRequest: Codable, Sendable, Equatable {
        /// `refresh_token`.
        public var grantType: String?
        /// The session's refresh token.
        public var refreshToken: String?

        /// A request with the given fields; the others are absent.
        public init(grantType: String? = nil, refreshToken: String? = nil) {
            self.grantType = grantType
            self.refreshToken = refreshToken
        }

        enum CodingKeys: String, CodingKey {
            case grantType = "grant_type"
            case refreshToken = "refresh_token"
        }
    }
}
