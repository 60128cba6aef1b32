import Foundation
import HearthWire

/// An identity provider's ID token for ``Auth/signIn(with:)`` and ``Auth/link(with:)``: what Sign in
/// with Apple (`ASAuthorizationAppleIDCredential.identityToken`) or Google Sign-In
/// (`GIDGoogleUser.idToken`) gives the app.
public struct ProviderCredential: Sendable {
    /// `apple.com`, `google.com`.
    public var providerID: String
    /// The provider's ID token (a JWT).
    public var idToken: String
    /// The nonce the sign-in request was made with, unhashed (Sign in with Apple takes its SHA-256).
    public var rawNonce: String?

    /// A credential for any provider the server accepts; ``apple(idToken:rawNonce:)`` and ``google(idToken:)``
    /// fill in the provider id for you.
    public init(providerID: String, idToken: String, rawNonce: String? = nil) {
        self.providerID = providerID
        self.idToken = idToken
        self.rawNonce = rawNonce
    }

    /// Sign in with Apple: the credential's `identityToken` as UTF-8 text, and the raw nonce whose
    /// SHA-256 (hex) the request carried.
    public static func apple(idToken: String, rawNonce: String?) -> ProviderCredential {
        ProviderCredential(providerID: "apple.com", idToken: idToken, rawNonce: rawNonce)
    }

    /// Google Sign-In: the user's ID token.
    public static func google(idToken: String) -> ProviderCredential {
        ProviderCredential(providerID: "google.com", idToken: idToken)
    }

    /// `postBody` as the server reads it: form fields.
    var postBody: String {
        var fields = [("providerId", providerID), ("id_token", idToken)]
        if let rawNonce { fields.append(("nonce", rawNonce)) }
        return fields.map { "\($0.0)=\(URLEncoding.component($0.1))" }.joined(separator: "&")
    }
}

extension Auth {
    /// Signs in with an identity provider's ID token, creating the user on a first sign-in.
    ///
    /// Throws ``AuthError`` `.accountExistsWithDifferentCredential` when another account has the
    /// provider's email (sign in to it, then ``link(with:)``), `.invalidCredential` when the server
    /// refuses the token, `.operationNotAllowed` when the provider is not enabled there,
    /// `.userDisabled`.
    @discardableResult
    public func signIn(with credential: ProviderCredential) async throws -> User {
        let answer: IdentityToolkit.SignInWithIdpResponse = try await client.call("signInWithIdp", Self.idpBody(credential, idToken: nil))
        try Self.checkConfirmation(answer)
        return try await start(answer)
    }

    /// Links an identity provider to the current (for example anonymous) user. The uid stays.
    ///
    /// Throws ``AuthError`` `.credentialAlreadyInUse` when the provider account is linked to another user,
    /// `.providerAlreadyLinked` when the user already has an account of that provider (the server would replace it),
    /// `.emailAlreadyInUse` when another account has the provider's verified email, `.requiresRecentLogin`
    /// when a user who is not anonymous signed in too long ago (a server outside `--dev`; reauthenticate and retry).
    @discardableResult
    public func link(with credential: ProviderCredential) async throws -> User {
        if currentUser?.providerIDs.contains(credential.providerID) == true {
            throw AuthError(code: .providerAlreadyLinked, message: "The user already has an account of \(credential.providerID) linked.")
        }
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SignInWithIdpResponse in
            try await client.call("signInWithIdp", Self.idpBody(credential, idToken: token))
        }
        try Self.checkConfirmation(answer)
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    /// Removes a sign-in provider (`apple.com`, `google.com`, `password`, `phone`) from the current user, who
    /// then can no longer sign in with it; the provider account is free to link to another user.
    ///
    /// Throws ``AuthError`` `.noSuchProvider` when the user has not linked it, `.requiresRecentLogin` when the user
    /// signed in too long ago (a server outside `--dev`; reauthenticate and retry).
    @discardableResult
    public func unlink(providerID: String) async throws -> User {
        guard let user = currentUser else { throw AuthError.notSignedIn }
        guard user.providerIDs.contains(providerID) else {
            throw AuthError(code: .noSuchProvider, message: "The user has no \(providerID) sign-in to remove.")
        }
        let (answer, epoch) = try await withToken { token -> IdentityToolkit.SetAccountInfoResponse in
            try await client.call("update", IdentityToolkit.SetAccountInfoRequest(deleteProvider: [providerID], idToken: token))
        }
        return try await refreshUser(epoch: epoch, tokens: answer)
    }

    static func idpBody(_ credential: ProviderCredential, idToken: String?) -> IdentityToolkit.SignInWithIdpRequest {
        IdentityToolkit.SignInWithIdpRequest(
            requestUri: "http://localhost", postBody: credential.postBody, idToken: idToken, returnSecureToken: true, returnIdpCredential: true)
    }

    /// `needConfirmation`: the server signed nobody in because an account has the provider's email; `errorMessage`:
    /// it refused a link (asked with `returnIdpCredential`, the server answers such refusals with status 200).
    static func checkConfirmation(_ answer: IdentityToolkit.SignInWithIdpResponse) throws {
        if let refusal = answer.errorMessage {
            var error = AuthError(serverMessage: refusal, status: 200)
            error.email = answer.email
            throw error
        }
        guard answer.needConfirmation == true, answer.idToken == nil else { return }
        var error = AuthError(
            code: .accountExistsWithDifferentCredential,
            message: "An account with this email exists; sign in to it and link the provider.", status: 200)
        error.email = answer.email
        throw error
    }
}
