import Foundation

/// Why an ``Auth`` call failed.
///
/// Match on ``code``; ``serverMessage`` keeps the server's text (`WEAK_PASSWORD : Password should
/// be at least 6 characters`) for logs. Neither ever contains a token or a password.
///
/// ```swift
/// do {
///     try await auth.signIn(email: email, password: password)
/// } catch let error as AuthError where error.code == .wrongPassword {
///     showHint()
/// }
/// ```
public struct AuthError: Error, Sendable, CustomStringConvertible {
    /// A stable reason. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case emailAlreadyInUse, userNotFound, wrongPassword, invalidCredential, userDisabled, weakPassword
            case invalidEmail, missingEmail, missingPassword, invalidUserToken, userTokenExpired, requiresRecentLogin
            case invalidVerificationCode, invalidVerificationID, sessionExpired, tooManyRequests, invalidPhoneNumber
            case missingPhoneNumber, invalidActionCode, expiredActionCode, operationNotAllowed, invalidCustomToken
            case credentialAlreadyInUse, quotaExceeded, invalidRefreshToken, notSignedIn, invalidAPIKey, network
            case invalidResponse, server, accountExistsWithDifferentCredential, providerAlreadyLinked, noSuchProvider
            case invalidContinueURL, userMismatch
        }

        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The code's name (`wrongPassword`), for logs; match on the static constants, not on this text.
        public var description: String { base.rawValue }

        /// `EMAIL_EXISTS`: another account uses the email.
        public static let emailAlreadyInUse = Code(.emailAlreadyInUse)
        /// `EMAIL_NOT_FOUND` / `USER_NOT_FOUND`: no such account (or it was deleted).
        public static let userNotFound = Code(.userNotFound)
        /// `INVALID_PASSWORD`.
        public static let wrongPassword = Code(.wrongPassword)
        /// `INVALID_LOGIN_CREDENTIALS`: wrong email or password (servers with email privacy on).
        public static let invalidCredential = Code(.invalidCredential)
        /// `USER_DISABLED`.
        public static let userDisabled = Code(.userDisabled)
        /// `WEAK_PASSWORD`: the server's detail says why.
        public static let weakPassword = Code(.weakPassword)
        /// `INVALID_EMAIL`.
        public static let invalidEmail = Code(.invalidEmail)
        /// `MISSING_EMAIL`.
        public static let missingEmail = Code(.missingEmail)
        /// `MISSING_PASSWORD`.
        public static let missingPassword = Code(.missingPassword)
        /// `INVALID_ID_TOKEN`: the session's token is not accepted; sign in again.
        public static let invalidUserToken = Code(.invalidUserToken)
        /// `TOKEN_EXPIRED`: the session was revoked (password changed elsewhere, tokens revoked).
        public static let userTokenExpired = Code(.userTokenExpired)
        /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`: a sensitive change needs a fresh sign-in.
        public static let requiresRecentLogin = Code(.requiresRecentLogin)
        /// `INVALID_CODE`: the SMS code is wrong.
        public static let invalidVerificationCode = Code(.invalidVerificationCode)
        /// `INVALID_SESSION_INFO` / `MISSING_SESSION_INFO`: the verification id is unknown or used.
        public static let invalidVerificationID = Code(.invalidVerificationID)
        /// `SESSION_EXPIRED`: the SMS code expired.
        public static let sessionExpired = Code(.sessionExpired)
        /// `TOO_MANY_ATTEMPTS_TRY_LATER`.
        public static let tooManyRequests = Code(.tooManyRequests)
        /// `INVALID_PHONE_NUMBER`.
        public static let invalidPhoneNumber = Code(.invalidPhoneNumber)
        /// `MISSING_PHONE_NUMBER`.
        public static let missingPhoneNumber = Code(.missingPhoneNumber)
        /// `INVALID_OOB_CODE` / `MISSING_OOB_CODE`: the emailed code is unknown or used.
        public static let invalidActionCode = Code(.invalidActionCode)
        /// `EXPIRED_OOB_CODE`.
        public static let expiredActionCode = Code(.expiredActionCode)
        /// `OPERATION_NOT_ALLOWED`, `ADMIN_ONLY_OPERATION`, `PASSWORD_LOGIN_DISABLED`, or an
        /// endpoint the server does not serve (e.g. custom tokens without `--dev`).
        public static let operationNotAllowed = Code(.operationNotAllowed)
        /// `INVALID_CUSTOM_TOKEN`, `CREDENTIAL_MISMATCH`, `MISSING_IDENTIFIER`, `INVALID_CLAIMS`.
        public static let invalidCustomToken = Code(.invalidCustomToken)
        /// The phone number, email or provider account (`FEDERATED_USER_ID_ALREADY_LINKED`) already
        /// belongs to another account: it cannot be linked.
        public static let credentialAlreadyInUse = Code(.credentialAlreadyInUse)
        /// A provider sign-in found no user with that provider account, but an account with its
        /// email exists: sign in to that account the way it was made, then link the provider
        /// (``AuthError/email`` names the address).
        public static let accountExistsWithDifferentCredential = Code(.accountExistsWithDifferentCredential)
        /// ``Auth/link(with:)`` for a provider the user already has an account of (unlink it first).
        public static let providerAlreadyLinked = Code(.providerAlreadyLinked)
        /// ``Auth/unlink(providerID:)`` for a provider the user has not linked.
        public static let noSuchProvider = Code(.noSuchProvider)
        /// A credential given to `reauthenticate` belongs to another account, or to none.
        public static let userMismatch = Code(.userMismatch)
        /// `INVALID_CONTINUE_URI` / `UNAUTHORIZED_DOMAIN`: an emailed link's continue URL is not an http(s) URL on
        /// a domain the server allows.
        public static let invalidContinueURL = Code(.invalidContinueURL)
        /// `QUOTA_EXCEEDED` / `RESET_PASSWORD_EXCEED_LIMIT`: too many messages to this recipient.
        public static let quotaExceeded = Code(.quotaExceeded)
        /// `INVALID_REFRESH_TOKEN` / `MISSING_REFRESH_TOKEN`: the stored session is not valid.
        public static let invalidRefreshToken = Code(.invalidRefreshToken)
        /// The call needs a signed-in user and there is none.
        public static let notSignedIn = Code(.notSignedIn)
        /// The server refused the API key.
        public static let invalidAPIKey = Code(.invalidAPIKey)
        /// The server could not be reached or the connection failed (see ``AuthError/cause``).
        public static let network = Code(.network)
        /// The server's answer could not be read.
        public static let invalidResponse = Code(.invalidResponse)
        /// Any other server error (see ``AuthError/status`` and ``AuthError/serverMessage``).
        public static let server = Code(.server)
    }

    /// Why the call failed; compare with the constants of ``Code`` (Firebase's `AuthErrorCode`).
    public var code: Code
    /// A safe, human-readable explanation.
    public var message: String
    /// The server's error message as sent (`CODE` or `CODE : detail`), if the server answered.
    public var serverMessage: String?
    /// The HTTP status, if the server answered.
    public var status: Int?
    /// The underlying error (a `URLError` for ``Code/network``).
    public var cause: (any Error)?
    /// For ``Code/credentialAlreadyInUse`` from linking a phone number: proof that this client
    /// verified the number, to sign in as the account that has it with ``Auth/signIn(phoneProof:)``.
    public var phoneProof: PhoneProof?
    /// For ``Code/accountExistsWithDifferentCredential``: the email the existing account has; for a
    /// ``Auth/link(with:)`` refused as ``Code/credentialAlreadyInUse`` or ``Code/emailAlreadyInUse``: the
    /// provider account's email.
    public var email: String?

    /// Makes an error, for instance to stand in for ``Auth`` in a test double; the SDK's own errors come from the
    /// server's answer.
    public init(code: Code, message: String, serverMessage: String? = nil, status: Int? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.serverMessage = serverMessage
        self.status = status
        self.cause = cause
    }

    /// The code part of ``serverMessage`` (`WEAK_PASSWORD`), if any.
    public var serverCode: String? { serverMessage.map(Self.codePart) }

    /// `CODE` of `CODE : detail` (clients split on the first colon).
    static func codePart(_ text: String) -> String {
        let head = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(text)
        return head.trimmingCharacters(in: .whitespaces)
    }

    /// `AuthError.<code>: <message>`, followed by the server's message when there is one; never a token or a password.
    public var description: String {
        var text = "AuthError.\(code): \(message)"
        if let serverMessage { text += " (\(serverMessage))" }
        return text
    }

    static let notSignedIn = AuthError(code: .notSignedIn, message: "No user is signed in.")

    static func network(_ error: any Error) -> AuthError {
        AuthError(code: .network, message: "The auth server could not be reached.", cause: error)
    }

    static func invalidResponse(status: Int) -> AuthError {
        AuthError(code: .invalidResponse, message: "The auth server's answer could not be read.", status: status)
    }

    /// Maps an Identity Toolkit / Secure Token error message (`CODE` or `CODE : detail`).
    init(serverMessage: String, status: Int) {
        self.serverMessage = serverMessage
        self.status = status
        self.cause = nil
        let code = Self.codePart(serverMessage)
        (self.code, self.message) = Self.mapping[code] ?? Self.statusMapping(status, serverMessage)
    }

    private static func statusMapping(_ status: Int, _ code: String) -> (Code, String) {
        switch status {
        case 403 where code.contains("API key"): (.invalidAPIKey, "The server refused the API key.")
        case 501: (.operationNotAllowed, "The server does not offer this operation.")
        default: (.server, "The auth server refused the request (HTTP \(status)).")
        }
    }

    private static let mapping: [String: (Code, String)] = [
        "EMAIL_EXISTS": (.emailAlreadyInUse, "The email address is already used by another account."),
        "DUPLICATE_EMAIL": (.emailAlreadyInUse, "The email address is already used by another account."),
        "EMAIL_NOT_FOUND": (.userNotFound, "There is no account with this email address."),
        "USER_NOT_FOUND": (.userNotFound, "The account does not exist (it may have been deleted)."),
        "INVALID_PASSWORD": (.wrongPassword, "The password is wrong."),
        "INVALID_LOGIN_CREDENTIALS": (.invalidCredential, "The email address or password is wrong."),
        "USER_DISABLED": (.userDisabled, "The account has been disabled."),
        "WEAK_PASSWORD": (.weakPassword, "The password is too weak."),
        "INVALID_EMAIL": (.invalidEmail, "The email address is not valid."),
        "MISSING_EMAIL": (.missingEmail, "An email address is required."),
        "MISSING_PASSWORD": (.missingPassword, "A password is required."),
        "INVALID_ID_TOKEN": (.invalidUserToken, "The session is no longer valid; sign in again."),
        "MISSING_ID_TOKEN": (.invalidUserToken, "The session is no longer valid; sign in again."),
        "TOKEN_EXPIRED": (.userTokenExpired, "The session has expired or was revoked; sign in again."),
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": (.requiresRecentLogin, "This change needs a recent sign-in; sign in again."),
        "INVALID_CODE": (.invalidVerificationCode, "The verification code is wrong."),
        "MISSING_CODE": (.invalidVerificationCode, "A verification code is required."),
        "INVALID_SESSION_INFO": (.invalidVerificationID, "The verification id is not valid."),
        "MISSING_SESSION_INFO": (.invalidVerificationID, "A verification id is required."),
        "SESSION_EXPIRED": (.sessionExpired, "The verification code has expired; request a new one."),
        "TOO_MANY_ATTEMPTS_TRY_LATER": (.tooManyRequests, "Too many attempts; try again later."),
        "INVALID_PHONE_NUMBER": (.invalidPhoneNumber, "The phone number is not valid."),
        "MISSING_PHONE_NUMBER": (.missingPhoneNumber, "A phone number is required."),
        "INVALID_TEMPORARY_PROOF": (.invalidVerificationID, "The phone verification has expired or was already used; verify the number again."),
        "PHONE_NUMBER_EXISTS": (.credentialAlreadyInUse, "The phone number is already used by another account."),
        "INVALID_OOB_CODE": (.invalidActionCode, "The code is not valid or was already used."),
        "INVALID_CONTINUE_URI": (.invalidContinueURL, "The continue URL is not a valid http(s) URL."),
        "UNAUTHORIZED_DOMAIN": (.invalidContinueURL, "The continue URL's domain is not allowed by the server."),
        "MISSING_OOB_CODE": (.invalidActionCode, "A code is required."),
        "EXPIRED_OOB_CODE": (.expiredActionCode, "The code has expired."),
        "OPERATION_NOT_ALLOWED": (.operationNotAllowed, "This sign-in method is not allowed."),
        "ADMIN_ONLY_OPERATION": (.operationNotAllowed, "This sign-in method is not allowed."),
        "PASSWORD_LOGIN_DISABLED": (.operationNotAllowed, "Password sign-in is not allowed."),
        "INVALID_CUSTOM_TOKEN": (.invalidCustomToken, "The custom token is not valid."),
        "CREDENTIAL_MISMATCH": (.invalidCustomToken, "The custom token is for another project."),
        "MISSING_IDENTIFIER": (.invalidCustomToken, "The custom token names no user."),
        "INVALID_CLAIMS": (.invalidCustomToken, "The custom token's claims are not valid."),
        "FORBIDDEN_CLAIM": (.invalidCustomToken, "The custom token uses a reserved claim."),
        "QUOTA_EXCEEDED": (.quotaExceeded, "Too many messages were sent to this recipient; try later."),
        "RESET_PASSWORD_EXCEED_LIMIT": (.quotaExceeded, "Too many password resets were requested; try later."),
        "INVALID_REFRESH_TOKEN": (.invalidRefreshToken, "The saved session is not valid; sign in again."),
        "MISSING_REFRESH_TOKEN": (.invalidRefreshToken, "The saved session is not valid; sign in again."),
        "API_KEY_INVALID": (.invalidAPIKey, "The server refused the API key."),
        "INVALID_IDP_RESPONSE": (.invalidCredential, "The sign-in provider's token was refused."),
        "MISSING_OR_INVALID_NONCE": (.invalidCredential, "The sign-in provider's token does not match the nonce."),
        "FEDERATED_USER_ID_ALREADY_LINKED": (.credentialAlreadyInUse, "This provider account is already linked to another user."),
    ]

    /// Errors after which the session cannot continue: the SDK signs out.
    var endsSession: Bool {
        [.userNotFound, .userDisabled, .userTokenExpired, .invalidRefreshToken, .invalidUserToken].contains(code)
    }
}

/// Proof that a client verified a phone number which belongs to another account (Firebase's
/// "updated credential"): valid once, for an hour. It comes with ``AuthError/phoneProof`` when
/// linking the number fails, so the app can switch to the account that has it.
public struct PhoneProof: Sendable, Hashable {
    /// The verified number, in E.164 (`+15555550100`).
    public var phoneNumber: String
    /// The server's one-time proof that this client verified ``phoneNumber``; treat it like a password.
    public var temporaryProof: String

    /// Rebuilds a proof from its parts (the SDK hands out complete ones in ``AuthError/phoneProof``).
    public init(phoneNumber: String, temporaryProof: String) {
        self.phoneNumber = phoneNumber
        self.temporaryProof = temporaryProof
    }
}
