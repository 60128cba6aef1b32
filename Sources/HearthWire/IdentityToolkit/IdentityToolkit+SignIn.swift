extension IdentityToolkit {
    /// `accounts:signUp`: a new account (anonymous, or email and password), an email and password linked to the
    /// caller's account, or an admin-created account (no tokens).
    public struct SignUpResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#SignupNewUserResponse`.
        public var kind: String? = "identitytoolkit#SignupNewUserResponse"
        /// The account's uid.
        public var localId: String?
        /// The account's email, lower-cased.
        public var email: String?
        /// The account's display name.
        public var displayName: String?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// An answer for the account `localId`, with the tokens issued for it (none for an admin create).
        public init(localId: String, email: String?, displayName: String?, tokens: SessionTokens?) {
            self.localId = localId
            self.email = email
            self.displayName = displayName
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }
    }

    /// `accounts:signInWithPassword`.
    public struct SignInWithPasswordResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#VerifyPasswordResponse`.
        public var kind: String? = "identitytoolkit#VerifyPasswordResponse"
        /// Always true: the email has an account.
        public var registered: Bool?
        /// The account's uid.
        public var localId: String?
        /// The email signed in with, lower-cased.
        public var email: String?
        /// The account's display name.
        public var displayName: String?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// The answer for a password sign-in to `localId`.
        public init(localId: String, email: String, displayName: String?, tokens: SessionTokens) {
            registered = true
            self.localId = localId
            self.email = email
            self.displayName = displayName
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }
    }

    /// `accounts:signInWithCustomToken`.
    public struct SignInWithCustomTokenResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#VerifyCustomTokenResponse`.
        public var kind: String? = "identitytoolkit#VerifyCustomTokenResponse"
        /// Whether the token's uid had no account before.
        public var isNewUser: Bool?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?
        /// Nil: this answer does not name the uid (the ID token's `sub` does).
        public var localId: String? { nil }

        /// The answer for a custom-token sign-in.
        public init(isNewUser: Bool, tokens: SessionTokens) {
            self.isNewUser = isNewUser
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }
    }

    /// `accounts:signInWithEmailLink`.
    public struct SignInWithEmailLinkResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#EmailLinkSigninResponse`.
        public var kind: String? = "identitytoolkit#EmailLinkSigninResponse"
        /// The address the link was sent to.
        public var email: String?
        /// The account's uid.
        public var localId: String?
        /// Whether the address had no account before.
        public var isNewUser: Bool?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// The answer for an email-link sign-in to `localId`.
        public init(email: String, localId: String, isNewUser: Bool, tokens: SessionTokens) {
            self.email = email
            self.localId = localId
            self.isNewUser = isNewUser
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }
    }

    /// `accounts:signInWithPhoneNumber`: a session, or, when the verified number belongs to another account than
    /// the one linking it, a temporary proof that signs in as that account.
    public struct SignInWithPhoneNumberResponse: SessionAnswer, Codable, Hashable {
        /// A proof the number was verified, instead of a session (the link was refused).
        public var temporaryProof: String?
        /// The proof's lifetime in seconds.
        public var temporaryProofExpiresIn: String?
        /// Whether the number had no account before.
        public var isNewUser: Bool?
        /// The verified number.
        public var phoneNumber: String?
        /// The account's uid.
        public var localId: String?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// A session for `localId`.
        public init(isNewUser: Bool, phoneNumber: String, localId: String, tokens: SessionTokens) {
            self.isNewUser = isNewUser
            self.phoneNumber = phoneNumber
            self.localId = localId
            (idToken, refreshToken, expiresIn) = SessionTokens.fields(tokens)
        }

        /// The refused link's answer: a proof for `phoneNumber`, valid for `expiresIn` seconds.
        public init(temporaryProof: String, expiresIn: Int64, phoneNumber: String) {
            self.temporaryProof = temporaryProof
            temporaryProofExpiresIn = String(expiresIn)
            self.phoneNumber = phoneNumber
        }
    }

    /// `accounts:sendVerificationCode`: the session an SMS code was sent for.
    public struct SendVerificationCodeResponse: Codable, Sendable, Hashable {
        /// The verification id to send back with the code.
        public var sessionInfo: String

        /// The answer naming `sessionInfo`.
        public init(sessionInfo: String) { self.sessionInfo = sessionInfo }
    }

    /// Secure Token's `v1/token` answer to a refresh (snake_case on the wire).
    public struct RefreshTokenResponse: Codable, Sendable, Hashable {
        /// The new ID token (the same as ``idToken``).
        public var accessToken: String
        /// The ID token's lifetime in seconds.
        public var expiresIn: String
        /// `Bearer`.
        public var tokenType: String
        /// The refresh token, unchanged.
        public var refreshToken: String
        /// The new ID token.
        public var idToken: String
        /// The user's uid.
        public var userID: String
        /// The project the token belongs to.
        public var projectID: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", expiresIn = "expires_in", tokenType = "token_type", refreshToken = "refresh_token"
            case idToken = "id_token", userID = "user_id", projectID = "project_id"
        }

        /// The answer carrying a freshly signed `idToken` that lives `expiresIn` seconds.
        public init(idToken: String, expiresIn: Int64, refreshToken: String, userID: String, projectID: String) {
            accessToken = idToken
            self.expiresIn = String(expiresIn)
            tokenType = "Bearer"
            self.refreshToken = refreshToken
            self.idToken = idToken
            self.userID = userID
            self.projectID = projectID
        }
    }
}

/// An ID token, the refresh token issued with it, and the ID token's lifetime.
public struct SessionTokens: Sendable, Hashable {
    /// The signed ID token.
    public var idToken: String
    /// The stored refresh token.
    public var refreshToken: String
    /// How long the ID token lives, in seconds.
    public var expiresIn: Int64

    /// The tokens of one sign-in or renewal.
    public init(idToken: String, refreshToken: String, expiresIn: Int64) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    /// The three answer fields (`idToken`, `refreshToken`, `expiresIn`) for `tokens`, all nil without them.
    static func fields(_ tokens: SessionTokens?) -> (String?, String?, String?) {
        guard let tokens else { return (nil, nil, nil) }
        return (tokens.idToken, tokens.refreshToken, String(tokens.expiresIn))
    }
}

extension IdentityToolkit {
    /// `accounts:signInWithIdp` (`verifyAssertion`): a session for the provider's account, or `needConfirmation`
    /// (an account with the provider's email exists and must sign in the old way and link), or, when a link is
    /// refused and the request set `returnIdpCredential`, `errorMessage` with the provider's fields and no session.
    public struct SignInWithIdpResponse: SessionAnswer, Codable, Hashable {
        /// `identitytoolkit#VerifyAssertionResponse`.
        public var kind: String? = "identitytoolkit#VerifyAssertionResponse"
        /// The provider (`google.com`, `apple.com`, …).
        public var providerId: String?
        /// The provider account's federated id.
        public var federatedId: String?
        /// The provider's ID token, from which a client rebuilds the credential to link later.
        public var oauthIdToken: String?
        /// The provider token's claims as JSON text.
        public var rawUserInfo: String?
        /// The email the provider gave.
        public var email: String?
        /// Whether the provider says the email is verified.
        public var emailVerified: Bool?
        /// The name the provider gave.
        public var displayName: String?
        /// The picture URL the provider gave.
        public var photoUrl: String?
        /// The code of a refused link (`FEDERATED_USER_ID_ALREADY_LINKED`, `EMAIL_EXISTS`), answered with status 200.
        public var errorMessage: String?
        /// True when an account already has the provider's email and must link the provider itself.
        public var needConfirmation: Bool?
        /// The account's uid (the existing account's, with ``needConfirmation``).
        public var localId: String?
        /// Whether the provider account had no user before.
        public var isNewUser: Bool?
        /// See ``SessionAnswer``.
        public var idToken: String?
        /// See ``SessionAnswer``.
        public var refreshToken: String?
        /// See ``SessionAnswer``.
        public var expiresIn: String?

        /// The fields every answer carries: the provider's.
        public init(
            providerId: String, federatedId: String, oauthIdToken: String, rawUserInfo: String, email: String?, emailVerified: Bool?,
            displayName: String?, photoUrl: String?
        ) {
            self.providerId = providerId
            self.federatedId = federatedId
            self.oauthIdToken = oauthIdToken
            self.rawUserInfo = rawUserInfo
            self.email = email
            self.emailVerified = emailVerified
            self.displayName = displayName
            self.photoUrl = photoUrl
        }

        /// This answer with the session for `localId`.
        public func signedIn(localId: String, isNewUser: Bool, tokens: SessionTokens) -> Self {
            var answer = self
            answer.localId = localId
            answer.isNewUser = isNewUser
            (answer.idToken, answer.refreshToken, answer.expiresIn) = SessionTokens.fields(tokens)
            return answer
        }
    }
}
