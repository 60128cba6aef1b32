import Foundation
import HearthWire

extension Auth {
    // MARK: Email links (passwordless sign-in)

    /// Emails `email` a link that signs in without a password (the account is made on first use).
    ///
    /// Opening the link leads to `continueURL` (a universal link into the app, say) with the code
    /// added to its query; the server accepts only http(s) URLs on its authorized domains. Keep the
    /// address on the device: ``signIn(email:link:)`` needs it again, as in Firebase.
    ///
    /// Throws ``AuthError`` `.invalidEmail`, `.invalidContinueURL`, `.quotaExceeded`.
    public func sendSignInLink(toEmail email: String, continueURL: URL) async throws {
        let _: IdentityToolkit.GetOobConfirmationCodeResponse = try await client.call(
            "sendOobCode",
            IdentityToolkit.GetOobConfirmationCodeRequest(
                requestType: IdentityToolkit.OobRequestType.emailSignIn.rawValue, email: email, continueUrl: continueURL.absoluteString,
                canHandleCodeInApp: true))
    }

    /// Whether `link` is an email sign-in link: the URL an opened sign-in mail leads to, the
    /// server's action link itself (`mode=signIn` and an `oobCode`), or a URL that carries one in
    /// its `link` or `deep_link_id` parameter (a deep link wrapping it).
    public func isSignInLink(_ link: URL) -> Bool { Self.signInCode(in: link) != nil }

    /// Signs in with a link ``sendSignInLink(toEmail:continueURL:)`` emailed to `email`. A link works
    /// once; the email must be the one it was sent to. The email counts as verified.
    ///
    /// Throws ``AuthError`` `.invalidActionCode` (not a sign-in link, or used), `.expiredActionCode`,
    /// `.invalidEmail` (another address), `.userDisabled`.
    @discardableResult
    public func signIn(email: String, link: URL) async throws -> User {
        let code = try Self.requireSignInCode(in: link)
        let answer: IdentityToolkit.SignInWithEmailLinkResponse = try await client.call(
            "signInWithEmailLink", IdentityToolkit.SignInWithEmailLinkRequest(email: email, oobCode: code, returnSecureToken: true))
        return try await start(answer)
    }

    /// Adds the email of a sign-in link to the current (for example anonymous or phone) user, who
    /// can sign in with email links from then on. The uid stays.
    ///
    /// An account with another address (an Apple user's relay address, say) takes this one instead,
    /// the other sessions end, and the previous address gets a link that undoes the change.
    ///
    /// Throws ``AuthError`` `.providerAlreadyLinked` when the user already signs in with an email
    /// (change it with ``sendEmailVerification(beforeUpdatingEmail:)``), `.emailAlreadyInUse` when
    /// another account has the email, `.requiresRecentLogin` as ``link(email:password:)``, and what
    /// ``signIn(email:link:)`` throws.
    @discardableResult
    public func link(email: String, link: URL) async throws -> User {
        if currentUser?.providerIDs.contains("password") == true {
            throw AuthError(code: .providerAlreadyLinked, message: "The user already signs in with an email address.")
        }
        let code = try Self.requireSignInCode(in: link)
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SignInWithEmailLinkResponse in
            try await client.call(
                "signInWithEmailLink",
                IdentityToolkit.SignInWithEmailLinkRequest(email: email, oobCode: code, idToken: token, returnSecureToken: true))
        }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    /// Emails `newEmail` a link that makes it the current user's email once opened (its `oobCode`
    /// goes to ``applyActionCode(_:)``), so an address changes only after its owner confirmed it.
    /// Servers with email-enumeration protection accept no other way to change it. The change ends
    /// the account's sessions, as a password change does: the user signs in again with the new address.
    ///
    /// Throws ``AuthError`` `.invalidEmail`, `.emailAlreadyInUse`, `.notSignedIn`.
    public func sendEmailVerification(beforeUpdatingEmail newEmail: String) async throws {
        _ = try await withToken { token -> IdentityToolkit.GetOobConfirmationCodeResponse in
            try await client.call(
                "sendOobCode", IdentityToolkit.GetOobConfirmationCodeRequest(type: .verifyAndChangeEmail, idToken: token, newEmail: newEmail))
        }
    }

    private static func requireSignInCode(in link: URL) throws -> String {
        guard let code = signInCode(in: link) else {
            throw AuthError(code: .invalidActionCode, message: "The URL is not an email sign-in link.")
        }
        return code
    }

    /// The `oobCode` of a sign-in link, looking one level into a `link` or `deep_link_id` parameter. The last
    /// `mode` and `oobCode` count: the server adds them after the continue URL's own query.
    static func signInCode(in link: URL, nested: Bool = true) -> String? {
        guard let items = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems else { return nil }
        func value(_ name: String) -> String? { items.last { $0.name == name }?.value }
        if value("mode") == "signIn", let code = value("oobCode"), !code.isEmpty { return code }
        guard nested, let inner = (value("link") ?? value("deep_link_id")).flatMap(URL.init(string:)) else { return nil }
        return signInCode(in: inner, nested: false)
    }
}
