import HearthCore
import HearthStore
public import HearthWire

extension AuthService {
    static let reservedClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time", "firebase", "at_hash", "c_hash",
    ]

    /// Validates a `customAttributes` text: a JSON object of at most 1000 characters without
    /// reserved claim names.
    static func checkCustomAttributes(_ text: String) throws {
        guard text.count <= 1000 else { throw AuthError("CLAIMS_TOO_LARGE") }
        guard case .object(let members)? = try? JSONValue.parse(text) else { throw AuthError("INVALID_CLAIMS") }
        if let bad = members.first(where: { reservedClaims.contains($0.key) }) { throw AuthError("FORBIDDEN_CLAIM", bad.key) }
    }

    // MARK: accounts:update

    /// Self-service with an `idToken`, or (privileged) any user by `localId`.
    /// - Parameter linkBase: where links in mails this sends point (`http://host:port`): the
    ///   recovery link an email change mails to the previous address.
    public func update(
        _ request: IdentityToolkit.SetAccountInfoRequest, privileged: Bool, linkBase: String? = nil
    ) async throws -> IdentityToolkit.SetAccountInfoResponse {
        let now = clock()
        let idToken = request.idToken
        if idToken == nil, let code = request.oobCode { return try await applyOobCode(code, now: now, linkBase: linkBase) }
        try Self.checkUpdate(request, privileged: privileged)
        var credentials: PasswordCredentials?
        if let password = request.password { credentials = try await hasher.hash(password) }
        let newCredentials = credentials
        let (response, recovery): (IdentityToolkit.SetAccountInfoResponse, EmailRecovery?) = try await store.transaction { tx in
            var user: UserRecord
            var signedInAt: Int64 = 0
            if let idToken {
                // A new password or email, or taking one away (after which the account would count as anonymous and
                // be exempt), needs a recent sign-in.
                let removesCredential =
                    !(request.deleteProvider ?? []).isEmpty || (request.deleteAttribute ?? []).contains { ["PASSWORD", "EMAIL"].contains($0) }
                let sensitive = !privileged && (request.password != nil || request.email != nil || removesCredential)
                (user, signedInAt) = try self.session(forIDToken: idToken, in: tx, now: now, recentSignIn: sensitive)
            } else {
                guard let found = try self.load(tx.account(uid: request.localId!)) else { throw AuthError.userNotFound }
                user = found
            }
            let before = user.validSince
            let wasAnonymous = user.isAnonymous
            let recovery = try self.apply(
                request, to: &user, credentials: newCredentials, byUser: idToken != nil, privileged: privileged, now: now, in: tx)
            var tokens: SessionTokens?
            let linked = wasAnonymous && !user.isAnonymous
            if let idToken, user.validSince != before || linked || (request.returnSecureToken ?? false) {
                let provider = wasAnonymous && user.passwordHash != nil ? "password" : (Self.provider(ofIDToken: idToken) ?? "password")
                // Not a sign-in: the session keeps its auth_time, unless an anonymous user just gained a credential or
                // the change ended the other sessions (see `authTime(keeping:before:after:)`).
                let authTime = linked || user.validSince != before ? nil : signedInAt
                tokens = try self.issueTokens(for: &user, provider: provider, in: tx, now: now, authTime: authTime)
            }
            try self.save(user, in: tx)
            return (self.setAccountInfoResponse(user, tokens: tokens), recovery)
        }
        if let recovery { await sendRecovery(recovery, now: now, linkBase: linkBase) }
        return response
    }

    /// Applies an update's changes to `user`: profile, email, password, deletions, and what only an admin sets.
    /// Returns the recovery to send when the user changed their own email.
    /// - Parameter byUser: the request carried the user's ID token (not an admin's `localId`).
    private func apply(
        _ request: IdentityToolkit.SetAccountInfoRequest, to user: inout UserRecord, credentials: PasswordCredentials?, byUser: Bool,
        privileged: Bool, now: Int64, in tx: any AccountTransaction
    ) throws -> EmailRecovery? {
        var recovery: EmailRecovery?
        let wasAnonymous = user.isAnonymous
        if let name = request.displayName { user.displayName = name }
        if let photo = request.photoUrl ?? request.photoURL { user.photoUrl = photo }
        if let email = request.email {
            let lower = email.lowercased()
            if let other = try tx.account(email: lower), other.uid != user.localId { throw AuthError("EMAIL_EXISTS") }
            if lower != user.email {
                if let previous = user.email {
                    user.initialEmail = user.initialEmail ?? previous
                    // The user changed it (admin changes are the operator's): the previous
                    // address may undo it.
                    if byUser { recovery = EmailRecovery(uid: user.localId, previous: previous, new: lower) }
                }
                user.email = lower
                user.emailVerified = false
                if !wasAnonymous { user.validSince = now / 1000 }
            }
        }
        if let credentials {
            user.setPassword(credentials, at: now)
            if !wasAnonymous { user.validSince = now / 1000 }
        }
        for attribute in request.deleteAttribute ?? [] {
            switch attribute {
            case "DISPLAY_NAME": user.displayName = nil
            case "PHOTO_URL": user.photoUrl = nil
            case "PASSWORD": user.removePassword()
            case "EMAIL": (user.email, user.emailVerified) = (nil, false)
            default: throw AuthError("INVALID_REQ_TYPE", "Unsupported deleteAttribute \(attribute)")
            }
        }
        for provider in request.deleteProvider ?? [] {
            switch provider {
            case "phone": user.phoneNumber = nil
            case "password":
                user.removePassword()
                (user.email, user.emailVerified) = (nil, false)
            default: user.linkedProviders.removeAll { $0.providerId == provider }
            }
        }
        if privileged && !byUser {
            if let verified = request.emailVerified { user.emailVerified = verified }
            if let disabled = request.disableUser { user.disabled = disabled }
            if let phone = request.phoneNumber { user.phoneNumber = phone }
            if let attributes = request.customAttributes { user.customAttributes = attributes == "{}" ? nil : attributes }
            if let validSince = request.validSince { user.validSince = validSince }
            // Account history carried over from another system (admin SDKs' migrations).
            if let created = request.createdAt { user.createdAt = created }
            if let lastLogin = request.lastLoginAt { user.lastLoginAt = lastLogin }
            if let info = request.linkProviderUserInfo { try link(info, to: &user, in: tx) }
        } else if privileged, let phone = request.phoneNumber {
            user.phoneNumber = phone
        }
        // A client's `phoneNumber` is ignored, as its `emailVerified` is: a number joins an account only through
        // an SMS code (signInWithPhoneNumber with an idToken), or else its owner's phone sign-ins would land here.
        return recovery
    }

    /// The `setAccountInfo` answer: the account's public fields and, when the session was renewed, its tokens.
    private func setAccountInfoResponse(_ user: UserRecord, tokens: SessionTokens?) -> IdentityToolkit.SetAccountInfoResponse {
        IdentityToolkit.SetAccountInfoResponse(
            localId: user.localId, email: user.email, displayName: user.displayName, photoUrl: user.photoUrl,
            emailVerified: user.emailVerified, providerUserInfo: user.providers, passwordHash: user.passwordHash.map { _ in UserRecord.redactedHash },
            tokens: tokens)
    }

    /// The checks an update passes before anything is hashed or read, in the order their errors take
    /// precedence: who may ask, then the email, the password's length, custom claims and the phone number.
    static func checkUpdate(_ request: IdentityToolkit.SetAccountInfoRequest, privileged: Bool) throws {
        if request.idToken == nil {
            guard privileged else {
                throw AuthError("INVALID_REQ_TYPE", "Unsupported request parameters.")
            }
            guard let uid = request.localId, !uid.isEmpty else { throw AuthError("MISSING_LOCAL_ID") }
            _ = uid
        } else if !privileged {
            if request.customAttributes != nil { throw AuthError("INSUFFICIENT_PERMISSION") }
            if request.disableUser != nil { throw AuthError("OPERATION_NOT_ALLOWED") }
        }
        if let email = request.email, !Self.isValidEmail(email) { throw AuthError("INVALID_EMAIL") }
        if let password = request.password, password.count < 6 { throw AuthError.weakPassword }
        if let attributes = request.customAttributes, privileged { try Self.checkCustomAttributes(attributes) }
        if privileged, let phone = request.phoneNumber, !Self.isValidPhone(phone) {
            throw AuthError("INVALID_PHONE_NUMBER", "Invalid format.")
        }
    }
}

extension AuthService {
    /// Links an identity provider (`linkProviderUserInfo`, admin update): `providerId` and `rawId`
    /// are required, `password` and `phone` are not providers one links this way, and one provider
    /// account belongs to one user (`FEDERATED_USER_ID_ALREADY_LINKED`).
    func link(_ info: IdentityToolkit.ProviderUserInfoInput, to user: inout UserRecord, in tx: any AccountTransaction) throws {
        guard let linked = ProviderInfo(request: info) else {
            throw AuthError("INVALID_PROVIDER_ID", "linkProviderUserInfo needs providerId and rawId")
        }
        guard !linked.isDerived else { throw AuthError("INVALID_PROVIDER_ID", "\(linked.providerId) cannot be linked with linkProviderUserInfo") }
        if let owner = try self.user(linking: linked.identity, in: tx), owner.localId != user.localId {
            throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
        }
        user.linkedProviders.removeAll { $0.providerId == linked.providerId }
        user.linkedProviders.append(linked)
    }
}
