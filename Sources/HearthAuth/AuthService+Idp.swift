import Crypto
import Foundation
import HearthCore
import HearthStore
public import HearthWire

extension AuthService {
    // MARK: accounts:signInWithIdp

    /// Signs in with an identity provider's ID token (Sign in with Apple, Google Sign-In), or links
    /// the provider to the signed-in user when `idToken` is given.
    ///
    /// The provider account is the token's `sub`. It reaches the user it is linked to; a new one gets a
    /// new user. When no user has it but an account already has the token's email, the answer is
    /// `needConfirmation` without tokens, as Firebase answers with one account per email: the app signs
    /// in the old way and links the provider. Only an email the provider says is verified becomes the
    /// user's email: an unverified one would let a provider account claim an address before its owner
    /// signs up with it (email-link sign-in and password resets go by the user's email). A link refused with
    /// `FEDERATED_USER_ID_ALREADY_LINKED` or `EMAIL_EXISTS` is answered with `errorMessage` and the provider
    /// fields when `returnIdpCredential` is set (the Firebase SDKs set it), else thrown.
    public func signInWithIdp(_ request: IdentityToolkit.SignInWithIdpRequest) async throws -> IdentityToolkit.SignInWithIdpResponse {
        let now = clock()
        guard request.requestUri?.isEmpty == false else { throw AuthError("MISSING_REQUEST_URI") }
        guard let postBody = request.postBody, !postBody.isEmpty else {
            throw AuthError("INVALID_IDP_RESPONSE", "postBody is missing: send the provider's id_token and providerId in it.")
        }
        let form = parseFormBody(postBody)
        guard let providerID = form["providerId"]?.lowercased(), !providerID.isEmpty,
            !["password", "phone", "anonymous", "custom"].contains(providerID)
        else {
            throw AuthError("INVALID_PROVIDER_ID", "postBody needs the providerId of an identity provider.")
        }
        guard let providerToken = form["id_token"], !providerToken.isEmpty else {
            throw AuthError("INVALID_IDP_RESPONSE", "Hearth signs in with the provider's id_token; an access_token alone cannot be checked here.")
        }
        let claims = try await options.identityProviders.verifiedClaims(of: providerToken, provider: providerID, nowSeconds: now / 1000)
        try Self.checkNonce(claims["nonce"]?.stringValue, sent: form["nonce"])
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw AuthError("INVALID_IDP_RESPONSE", "The ID token has no subject (sub).")
        }
        let email = claims["email"]?.stringValue?.lowercased()
        let emailVerified: Bool =
            switch claims["email_verified"] {
            case .bool(let b)?: b
            case .string(let s)?: s == "true"  // Apple sends the text "true"
            default: false
            }
        // The email the user may take: a verified one.
        let verifiedEmail = emailVerified ? email : nil
        // Google's federated id is a URL, as Firebase (and its emulator) writes it; other providers' is the subject.
        let federatedID = providerID == "google.com" ? "https://accounts.google.com/\(subject)" : subject
        let linked = ProviderInfo(
            providerId: providerID, rawId: subject, federatedId: federatedID, email: email, displayName: claims["name"]?.stringValue,
            photoUrl: claims["picture"]?.stringValue)
        let rawUserInfo = String(decoding: claims.jsonBytes, as: UTF8.self)
        let idToken = request.idToken
        // What every answer carries, `needConfirmation` too: the client rebuilds the provider credential from
        // `oauthIdToken` to link it once the user has signed in the old way.
        let base = IdentityToolkit.SignInWithIdpResponse(
            providerId: providerID, federatedId: federatedID, oauthIdToken: providerToken, rawUserInfo: rawUserInfo, email: email,
            emailVerified: email.map { _ in emailVerified }, displayName: linked.displayName, photoUrl: linked.photoUrl)
        do {
            return try await signInWithIdp(
                linked, answer: base, verifiedEmail: verifiedEmail, linkingTo: idToken, autoCreate: request.autoCreate ?? true, now: now)
        } catch let error as AuthError
            where idToken != nil && request.returnIdpCredential == true && Self.answeredWithCredential.contains(error.code)
        {
            // A refused link asked to return the credential is answered 200 with the code in `errorMessage` and no
            // session, as Firebase does: its iOS SDK then attaches the credential to `credentialAlreadyInUse`, so the
            // app can sign in as the account that has the provider. The transaction was rolled back.
            var refused = base
            refused.errorMessage = error.code
            return refused
        }
    }

    /// The refused links Firebase answers with the provider credential when `returnIdpCredential` is set.
    static let answeredWithCredential: Set<String> = ["FEDERATED_USER_ID_ALREADY_LINKED", "EMAIL_EXISTS"]

    private func signInWithIdp(
        _ linked: ProviderInfo, answer base: IdentityToolkit.SignInWithIdpResponse, verifiedEmail: String?, linkingTo idToken: String?,
        autoCreate: Bool, now: Int64
    ) async throws -> IdentityToolkit.SignInWithIdpResponse {
        let providerID = linked.providerId
        return try await store.transaction { tx in
            var user: UserRecord
            var isNew = false
            var authTime: Int64?
            if let idToken {
                // A new way into an account that has one needs a recent sign-in (see signInWithPhoneNumber).
                let signedInAt: Int64
                (user, signedInAt) = try self.session(forIDToken: idToken, in: tx, now: now, recentSignIn: true)
                authTime = Self.authTime(keeping: signedInAt, before: user, after: user)
                if let owner = try self.user(linking: linked.identity, in: tx), owner.localId != user.localId {
                    throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
                }
                // An anonymous user who links a provider takes its verified email (another account's is EMAIL_EXISTS, as
                // in Firebase's emulator) and its profile.
                if user.email == nil, let verifiedEmail {
                    if let other = try tx.account(email: verifiedEmail), other.uid != user.localId { throw AuthError("EMAIL_EXISTS") }
                    (user.email, user.emailVerified) = (verifiedEmail, true)
                }
                if user.displayName == nil { user.displayName = linked.displayName }
                if user.photoUrl == nil { user.photoUrl = linked.photoUrl }
            } else if let owner = try self.user(linking: linked.identity, in: tx) {
                user = owner
                if user.disabled { throw AuthError("USER_DISABLED") }
            } else if !autoCreate {
                // Re-authentication (`autoCreate: false`) proves who the user is; it never makes an account.
                throw AuthError.userNotFound
            } else if let verifiedEmail, var holder = try self.load(tx.account(email: verifiedEmail)) {
                // An account whose email nobody verified is claimed by the provider that verified it (as Firebase does
                // with one account per email); one that proved its email must sign in the old way and link.
                guard !holder.emailVerified else {
                    var confirm = base
                    (confirm.needConfirmation, confirm.localId) = (true, holder.localId)
                    return confirm
                }
                if holder.disabled { throw AuthError("USER_DISABLED") }
                holder.claimUnverifiedEmail(nowMillis: now)
                user = holder
            } else {
                user = UserRecord(localId: Self.newUID(), createdAt: now, validSince: now / 1000)
                (user.email, user.emailVerified) = (verifiedEmail, verifiedEmail != nil)
                (user.displayName, user.photoUrl) = (linked.displayName, linked.photoUrl)
                isNew = true
            }
            user.linkedProviders.removeAll { $0.providerId == providerID }
            user.linkedProviders.append(linked)
            user.lastLoginAt = now
            let tokens = try self.issueTokens(for: &user, provider: providerID, in: tx, now: now, authTime: authTime)
            try self.save(user, in: tx, mustBeNew: isNew)
            return base.signedIn(localId: user.localId, isNewUser: isNew, tokens: tokens)
        }
    }

    /// A token minted for a nonce must come with the raw nonce, whose SHA-256 in hex is in the token (as Sign in with
    /// Apple and Firebase do it: the token's own claim, which anyone holding the token can read, is not the proof); a
    /// nonce sent for a token without one is refused too.
    static func checkNonce(_ inToken: String?, sent: String?) throws {
        switch (inToken, sent) {
        case (nil, nil): return
        case (let expected?, let raw?):
            let hashed = SHA256.hash(data: Array(raw.utf8)).map { String(format: "%02x", $0) }.joined()
            guard expected == hashed else { throw AuthError("MISSING_OR_INVALID_NONCE", "The nonce does not match the ID token's.") }
        case (_?, nil): throw AuthError("MISSING_OR_INVALID_NONCE", "The ID token was minted with a nonce; send it in postBody.")
        case (nil, _?): throw AuthError("MISSING_OR_INVALID_NONCE", "The ID token has no nonce, but one was sent.")
        }
    }
}
