import Crypto
import Foundation
import HearthCore
import HearthStore
public import HearthWire

/// An out-of-band code (email action) or a phone verification session.
struct OneTimeCode: Codable, Sendable {
    var requestType: String
    var email: String?
    var newEmail: String?
    var uid: String?
    var phoneNumber: String?
    /// Phone sessions: SHA-256 (base64) of the 6-digit code, and wrong guesses so far.
    var codeDigest: String?
    var attempts = 0
    /// Kept only when codes are readable (`--dev` emulator listings): the code or session itself,
    /// the SMS digits and the link.
    var plainKey: String?
    var code: String?
    var oobLink: String?
    var created: Int64
}

/// Pending codes in the accounts store, keyed by the SHA-256 of the code: they survive a restart
/// and are shared by every node on the same store. A code lives one hour and is used once.
struct CodeBook: Sendable {
    let store: any AccountStore
    /// `--dev`: keep codes readable for the emulator endpoints. Otherwise only digests are stored.
    let readable: Bool
    static let lifetime: Int64 = 3_600_000
    /// Wrong SMS codes before the session is discarded.
    static let maxAttempts = 5

    static func digest(_ s: String) -> Data { Data(SHA256.hash(data: Array(s.utf8))) }

    func add(_ key: String, _ code: OneTimeCode) async throws {
        try await store.transaction { tx in try self.add(key, code, in: tx) }
    }

    /// Stores a code in a transaction the caller holds, so it is kept only if that commits.
    func add(_ key: String, _ code: OneTimeCode, in tx: any AccountTransaction) throws {
        var stored = code
        if readable {
            stored.plainKey = key
        } else {
            (stored.code, stored.oobLink) = (nil, nil)
        }
        try tx.deleteCodes(createdBefore: code.created - Self.lifetime)
        try tx.saveCode(hash: Self.digest(key), data: try JSONEncoder().encode(stored), created: code.created)
    }

    /// Removes a live code inside a transaction the caller holds, which then applies what the code stands for: if that
    /// fails (a bad `idToken`, an email taken meanwhile), the transaction rolls back and the code stays usable, so a
    /// client can retry; two concurrent uses still cannot both succeed.
    func take(_ key: String, now: Int64, in tx: any AccountTransaction) throws -> OneTimeCode? {
        guard let row = try tx.code(hash: Self.digest(key)) else { return nil }
        try tx.deleteCode(hash: Self.digest(key))
        guard row.created > now - Self.lifetime else { return nil }
        return try JSONDecoder().decode(OneTimeCode.self, from: row.data)
    }

    func peek(_ key: String, now: Int64) async throws -> OneTimeCode? {
        try await store.read { tx in
            guard let row = try tx.code(hash: Self.digest(key)), row.created > now - Self.lifetime else { return nil }
            return try JSONDecoder().decode(OneTimeCode.self, from: row.data)
        }
    }

    /// Counts a wrong SMS code; the session is dropped after `maxAttempts`.
    func recordWrongGuess(_ key: String) async throws {
        try await store.transaction { tx in
            guard let row = try tx.code(hash: Self.digest(key)) else { return }
            var code = try JSONDecoder().decode(OneTimeCode.self, from: row.data)
            code.attempts += 1
            if code.attempts >= Self.maxAttempts {
                try tx.deleteCode(hash: Self.digest(key))
            } else {
                try tx.saveCode(hash: Self.digest(key), data: try JSONEncoder().encode(code), created: row.created)
            }
        }
    }

    /// Live codes, oldest first (readable ones only).
    func all(now: Int64) async throws -> [OneTimeCode] {
        try await store.read { tx in
            try tx.codes().filter { $0.created > now - Self.lifetime }.compactMap { try? JSONDecoder().decode(OneTimeCode.self, from: $0.data) }
        }.filter { $0.plainKey != nil }
    }
}

extension AuthService {
    static func randomCode(bytes: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    // MARK: accounts:sendOobCode

    /// `accounts:sendOobCode`: makes a one-time code for `PASSWORD_RESET`, `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`
    /// or `EMAIL_SIGNIN` and mails its link (on `linkBase`, at ``Options/actionPath``) through ``sender``; a
    /// `privileged` caller may ask for the link back instead (`returnOobLink`). The `continueUrl` must be on
    /// ``Options/authorizedDomains``. Throws `MISSING_REQ_TYPE`, `INVALID_REQ_TYPE`, `EMAIL_NOT_FOUND` (a reset
    /// without email privacy), `EMAIL_EXISTS`, `UNAUTHORIZED_DOMAIN`, and `QUOTA_EXCEEDED` or
    /// `RESET_PASSWORD_EXCEED_LIMIT` past ``Options/messagesPerRecipientPerHour``. A failed delivery still answers
    /// success; `onDeliveryFailure` hears of it.
    public func sendOobCode(
        _ request: IdentityToolkit.GetOobConfirmationCodeRequest, privileged: Bool, linkBase: String
    ) async throws -> IdentityToolkit.GetOobConfirmationCodeResponse {
        let now = clock()
        guard let requestType = request.requestType, requestType != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw AuthError("MISSING_REQ_TYPE")
        }
        let returnLink = request.returnOobLink ?? false
        if returnLink && !privileged { throw AuthError("INSUFFICIENT_PERMISSION") }
        // A link mailed to someone must not carry its code to a site the project does not own: the continue URL is
        // read as the browser that follows the link will read it, and the link carries it as parsed.
        let continueURL = try request.continueUrl.map { try authorizedContinueURL($0) }
        if let domain = request.linkDomain, !domain.isEmpty, let allowed = options.linkDomains, !allowed.contains(domain.lowercased()) {
            throw AuthError("INVALID_HOSTING_LINK_DOMAIN")
        }
        var record = OneTimeCode(requestType: requestType, created: now)
        let mode: String
        switch request.type {
        case .passwordReset?:
            guard let email = request.email?.lowercased() else { throw AuthError("MISSING_EMAIL") }
            guard let user = try await store.transaction({ tx in try self.load(tx.account(email: email)) }) else {
                // With email-enumeration protection an unknown address looks like a known one, and nothing is sent.
                if emailPrivacy && !privileged {
                    return IdentityToolkit.GetOobConfirmationCodeResponse(email: email)
                }
                throw AuthError("EMAIL_NOT_FOUND")
            }
            (record.email, record.uid, mode) = (email, user.localId, "resetPassword")
        case .verifyEmail?:
            let user: UserRecord = try await store.transaction { tx in
                if let idToken = request.idToken { return try self.user(forIDToken: idToken, in: tx, now: now) }
                guard privileged, let email = request.email?.lowercased() else { throw AuthError("MISSING_ID_TOKEN") }
                guard let u = try self.load(tx.account(email: email)) else { throw AuthError.userNotFound }
                return u
            }
            guard let email = user.email else { throw AuthError("MISSING_EMAIL") }
            (record.email, record.uid, mode) = (email, user.localId, "verifyEmail")
        case .verifyAndChangeEmail?:
            guard let newEmail = request.newEmail?.lowercased() else { throw AuthError("MISSING_NEW_EMAIL") }
            guard Self.isValidEmail(newEmail) else { throw AuthError("INVALID_EMAIL") }
            let user: UserRecord = try await store.transaction { tx in
                // The caller first: otherwise anyone with the API key could probe which addresses are registered.
                let user: UserRecord
                if let idToken = request.idToken {
                    user = try self.user(forIDToken: idToken, in: tx, now: now, recentSignIn: !privileged)
                } else {
                    guard privileged, let email = request.email?.lowercased(), let u = try self.load(tx.account(email: email)) else {
                        throw AuthError.userNotFound
                    }
                    user = u
                }
                if try tx.account(email: newEmail) != nil { throw AuthError("EMAIL_EXISTS") }
                return user
            }
            (record.email, record.newEmail, record.uid, mode) = (user.email, newEmail, user.localId, "verifyAndChangeEmail")
        case .emailSignIn?:
            guard let email = request.email?.lowercased() else { throw AuthError("MISSING_EMAIL") }
            guard Self.isValidEmail(email) else { throw AuthError("INVALID_EMAIL") }
            (record.email, mode) = (email, "signIn")
        case .recoverEmail?, nil:
            // A recovery link is only ever mailed by an email change, never asked for.
            throw AuthError("INVALID_REQ_TYPE", "Unsupported request type \(requestType)")
        }
        if !returnLink, let to = record.newEmail ?? record.email {
            try await checkMessageQuota(to, now: now, code: requestType == "PASSWORD_RESET" ? "RESET_PASSWORD_EXCEED_LIMIT" : "QUOTA_EXCEEDED")
        }
        let code = Self.randomCode(bytes: 40)
        let link = actionLink(mode: mode, code: code, linkBase: linkBase, continueUrl: continueURL?.description)
        record.oobLink = link
        try await codes.add(code, record)
        if !returnLink, let to = record.newEmail ?? record.email {
            // Admin link generation returns the link instead of mailing it, as Firebase does.
            let subjects = [
                "PASSWORD_RESET": "Reset your password", "VERIFY_EMAIL": "Verify your email",
                "VERIFY_AND_CHANGE_EMAIL": "Confirm your new email", "EMAIL_SIGNIN": "Sign in",
            ]
            await deliver(OutgoingMessage(
                channel: .email, to: to, subject: subjects[requestType] ?? requestType,
                body: "Open this link to continue: \(link)\n", purpose: requestType))
        }
        return IdentityToolkit.GetOobConfirmationCodeResponse(
            email: record.email, oobCode: returnLink ? code : nil, oobLink: returnLink ? link : nil)
    }

    /// The emailed link that opens the action page for `code`.
    func actionLink(mode: String, code: String, linkBase: String, continueUrl: String? = nil) -> String {
        var link = "\(linkBase)\(options.actionPath)?mode=\(mode)&lang=en&oobCode=\(code)&apiKey=fake-api-key"
        if let continueUrl { link += "&continueUrl=" + percentEncodeComponent(continueUrl) }
        return link
    }

    // MARK: accounts:resetPassword

    /// `accounts:resetPassword`. Without `newPassword` it reads an emailed `oobCode` without using it (the
    /// client's `checkActionCode`: its `requestType` and addresses); with one it uses a `PASSWORD_RESET` code to set
    /// the password, which also verifies the email. Throws `MISSING_OOB_CODE`, `INVALID_OOB_CODE`, `WEAK_PASSWORD`,
    /// `USER_DISABLED`.
    public func resetPassword(_ request: IdentityToolkit.ResetPasswordRequest) async throws -> IdentityToolkit.ResetPasswordResponse {
        let now = clock()
        guard let code = request.oobCode, !code.isEmpty else { throw AuthError("MISSING_OOB_CODE") }
        guard let newPassword = request.newPassword else {
            // Emailed codes only: an SMS session or a phone proof is not an action code.
            guard let record = try await codes.peek(code, now: now), let type = IdentityToolkit.OobRequestType(rawValue: record.requestType) else {
                throw AuthError("INVALID_OOB_CODE")
            }
            return IdentityToolkit.ResetPasswordResponse(
                requestType: type, email: type == .emailSignIn ? nil : record.email, newEmail: record.newEmail)
        }
        guard let record = try await codes.peek(code, now: now), record.requestType == "PASSWORD_RESET" else { throw AuthError("INVALID_OOB_CODE") }
        guard newPassword.count >= 6 else { throw AuthError.weakPassword }
        let credentials = try await hasher.hash(newPassword)
        return try await store.transaction { tx in
            guard try self.codes.take(code, now: now, in: tx) != nil else { throw AuthError("INVALID_OOB_CODE") }
            guard let uid = record.uid, var user = try self.load(tx.account(uid: uid)) else { throw AuthError("INVALID_OOB_CODE") }
            if user.disabled { throw AuthError("USER_DISABLED") }
            user.setPassword(credentials, at: now)
            user.emailVerified = true
            user.validSince = now / 1000
            try self.save(user, in: tx)
            return IdentityToolkit.ResetPasswordResponse(requestType: .passwordReset, email: user.email ?? "")
        }
    }

    /// `accounts:update` with an `oobCode`: verify an email, apply an email change, or undo one
    /// (`RECOVER_EMAIL`, from the link mailed to the previous address).
    func applyOobCode(_ code: String, now: Int64, linkBase: String?) async throws -> IdentityToolkit.SetAccountInfoResponse {
        guard let record = try await codes.peek(code, now: now), let uid = record.uid,
            ["VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL"].contains(record.requestType)
        else { throw AuthError("INVALID_OOB_CODE") }
        let (response, recovery): (IdentityToolkit.SetAccountInfoResponse, EmailRecovery?) = try await store.transaction { tx in
            guard try self.codes.take(code, now: now, in: tx) != nil else { throw AuthError("INVALID_OOB_CODE") }
            guard var user = try self.load(tx.account(uid: uid)) else { throw AuthError.userNotFound }
            var recovery: EmailRecovery?
            switch record.requestType {
            case "VERIFY_EMAIL":
                // The link proves access to the address it was mailed to, not to whatever the account's email is now.
                guard record.email != nil, record.email == user.email else { throw AuthError("INVALID_OOB_CODE") }
            case "RECOVER_EMAIL":
                // Back to the address the change was made from (it proved access by opening the
                // link), and every session of whoever made the change ends.
                guard let previous = record.email else { throw AuthError("INVALID_OOB_CODE") }
                if let other = try tx.account(email: previous), other.uid != uid { throw AuthError("EMAIL_EXISTS") }
                user.email = previous
                user.validSince = now / 1000
            default:
                if let newEmail = record.newEmail {
                    if let previous = user.email, previous != newEmail {
                        recovery = EmailRecovery(uid: uid, previous: previous, new: newEmail)
                        user.initialEmail = user.initialEmail ?? previous
                    }
                    user.email = newEmail
                    user.validSince = now / 1000
                }
            }
            user.emailVerified = true
            try self.save(user, in: tx)
            return (IdentityToolkit.SetAccountInfoResponse(localId: uid, email: user.email, emailVerified: true), recovery)
        }
        if let recovery { await sendRecovery(recovery, now: now, linkBase: linkBase) }
        return response
    }

    /// An email change to tell the previous address about.
    struct EmailRecovery: Sendable {
        var uid: String
        var previous: String
        var new: String
    }

    /// Mails the previous address a `RECOVER_EMAIL` link that undoes the change, as Firebase does
    /// after every email change: whoever lost the address (to a stolen session, say) can take the
    /// account back. Best effort: the change itself is already committed.
    func sendRecovery(_ recovery: EmailRecovery, now: Int64, linkBase: String?) async {
        var record = OneTimeCode(requestType: "RECOVER_EMAIL", created: now)
        (record.email, record.newEmail, record.uid) = (recovery.previous, recovery.new, recovery.uid)
        let code = Self.randomCode(bytes: 40)
        let link = actionLink(mode: "recoverEmail", code: code, linkBase: linkBase ?? "")
        record.oobLink = link
        do {
            try await codes.add(code, record)
        } catch {
            onDeliveryFailure(.email, "RECOVER_EMAIL", "the recovery code could not be stored: \(error)")
            return
        }
        await deliver(OutgoingMessage(
            channel: .email, to: recovery.previous, subject: "Your sign-in email was changed",
            body: "The email address of your account was changed to \(recovery.new). If you did not do this, open this link to change it back: \(link)\n",
            purpose: "RECOVER_EMAIL"))
    }

    /// The account a passwordless sign-in (email link, phone code) reaches: the one that has the
    /// email or number (refused when disabled), or a new one.
    func existingOrNewUser(_ row: AccountRow?, now: Int64) throws -> (user: UserRecord, isNew: Bool) {
        if let existing = try load(row) {
            if existing.disabled { throw AuthError("USER_DISABLED") }
            return (existing, false)
        }
        return (UserRecord(localId: Self.newUID(), createdAt: now, validSince: now / 1000), true)
    }

    // MARK: accounts:signInWithEmailLink

    /// - Parameter linkBase: where links in mails this sends point (`http://host:port`): the recovery link mailed
    ///   to the previous address when a link with an `idToken` replaces the account's email.
    public func signInWithEmailLink(
        _ request: IdentityToolkit.SignInWithEmailLinkRequest, linkBase: String? = nil
    ) async throws -> IdentityToolkit.SignInWithEmailLinkResponse {
        let now = clock()
        guard let code = request.oobCode, !code.isEmpty else { throw AuthError("MISSING_OOB_CODE") }
        guard let email = request.email?.lowercased() else { throw AuthError("MISSING_EMAIL") }
        guard let record = try await codes.peek(code, now: now), record.requestType == "EMAIL_SIGNIN" else { throw AuthError("INVALID_OOB_CODE") }
        guard record.email == email else { throw AuthError("INVALID_EMAIL", "The email provided does not match the sign-in email address.") }
        let (response, recovery): (IdentityToolkit.SignInWithEmailLinkResponse, EmailRecovery?) = try await store.transaction { tx in
            guard try self.codes.take(code, now: now, in: tx) != nil else { throw AuthError("INVALID_OOB_CODE") }
            var user: UserRecord
            var isNew = false
            var authTime: Int64?
            var recovery: EmailRecovery?
            if let idToken = request.idToken {
                // Linking an email to an account that has one is a credential change, as in `signUp` with an
                // idToken: it needs a recent sign-in (outside the emulator), ends the account's other sessions, and mails
                // the previous address a link that undoes it, as `update` does.
                let signedInAt: Int64
                (user, signedInAt) = try self.session(forIDToken: idToken, in: tx, now: now, recentSignIn: true)
                let before = user
                if let other = try tx.account(email: email), other.uid != user.localId { throw AuthError("EMAIL_EXISTS") }
                if let previous = user.email, previous != email {
                    user.validSince = now / 1000
                    user.initialEmail = user.initialEmail ?? previous
                    recovery = EmailRecovery(uid: user.localId, previous: previous, new: email)
                }
                user.email = email
                authTime = Self.authTime(keeping: signedInAt, before: before, after: user)
            } else {
                (user, isNew) = try self.existingOrNewUser(tx.account(email: email), now: now)
                user.email = email
                // The link's holder just proved the address; an account that had it unverified is theirs now.
                if !isNew { user.claimUnverifiedEmail(nowMillis: now) }
            }
            user.emailVerified = true
            user.emailLinkSignin = true
            user.lastLoginAt = now
            let tokens = try self.issueTokens(for: &user, provider: "password", in: tx, now: now, authTime: authTime)
            try self.save(user, in: tx, mustBeNew: isNew)
            let answer = IdentityToolkit.SignInWithEmailLinkResponse(email: email, localId: user.localId, isNewUser: isNew, tokens: tokens)
            return (answer, recovery)
        }
        if let recovery { await sendRecovery(recovery, now: now, linkBase: linkBase) }
        return response
    }

    // MARK: accounts:signInWithCustomToken

    /// The `aud` a signed custom token must carry (Identity Toolkit's service name, as admin SDKs write it).
    public static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// Custom tokens are minted by admin SDKs with the service account's key, which Hearth does
    /// not have; like the emulator, Hearth decodes them without checking the signature, so this
    /// endpoint is only served with `--dev` or to admin callers.
    public func signInWithCustomToken(_ request: IdentityToolkit.SignInWithCustomTokenRequest) async throws
        -> IdentityToolkit.SignInWithCustomTokenResponse
    {
        let now = clock()
        guard let token = request.token, !token.isEmpty else { throw AuthError("INVALID_CUSTOM_TOKEN", "missing token") }
        let payload: JSONValue
        if token.hasPrefix("{") {
            guard let p = try? JSONValue.parse(token) else { throw AuthError("INVALID_CUSTOM_TOKEN", "invalid JSON") }
            payload = p
        } else {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let bytes = Base64URL.decode(parts[1]), let p = try? JSONValue.parse(bytes) else {
                throw AuthError("INVALID_CUSTOM_TOKEN", "malformed token")
            }
            guard p["aud"]?.stringValue == Self.customTokenAudience else { throw AuthError("INVALID_CUSTOM_TOKEN", "wrong audience") }
            payload = p
        }
        guard let uid = payload["uid"]?.stringValue ?? payload["user_id"]?.stringValue, !uid.isEmpty, uid.utf8.count <= 128 else {
            throw AuthError("MISSING_IDENTIFIER")
        }
        var extra: [JSONMember] = []
        if let claims = payload["claims"] {
            guard case .object(let m) = claims else { throw AuthError("INVALID_CLAIMS") }
            if let bad = m.first(where: { Self.reservedClaims.contains($0.key) }) { throw AuthError("FORBIDDEN_CLAIM", bad.key) }
            extra = m
        }
        let developerClaims = extra
        return try await store.transaction { tx in
            var isNew = false
            var user: UserRecord
            if let existing = try self.load(tx.account(uid: uid)) {
                user = existing
                if user.disabled { throw AuthError("USER_DISABLED") }
            } else {
                user = UserRecord(localId: uid, createdAt: now, validSince: now / 1000)
                isNew = true
            }
            user.customAuth = true
            user.lastLoginAt = now
            let tokens = try self.issueTokens(for: &user, provider: "custom", extraClaims: developerClaims, in: tx, now: now)
            try self.save(user, in: tx, mustBeNew: isNew)
            return IdentityToolkit.SignInWithCustomTokenResponse(isNewUser: isNew, tokens: tokens)
        }
    }

    // MARK: accounts:createAuthUri

    /// `accounts:createAuthUri` (the client's `fetchSignInMethods(forEmail:)`): whether `identifier` has an account
    /// and its sign-in methods (`password`, `emailLink`, linked providers). With email privacy on it answers only a
    /// `sessionId`, saying nothing about the address. Throws `MISSING_IDENTIFIER`, `INVALID_IDENTIFIER`.
    public func createAuthUri(_ request: IdentityToolkit.CreateAuthUriRequest) async throws -> IdentityToolkit.CreateAuthUriResponse {
        guard let identifier = request.identifier?.lowercased() else { throw AuthError("MISSING_IDENTIFIER") }
        guard Self.isValidEmail(identifier) else { throw AuthError("INVALID_IDENTIFIER") }
        // With email-enumeration protection the answer says nothing about the address.
        if emailPrivacy {
            return IdentityToolkit.CreateAuthUriResponse(sessionId: Self.randomCode(bytes: 20))
        }
        let user = try await store.transaction { tx in try self.load(tx.account(email: identifier)) }
        var methods: [String] = []
        var providers: [String] = []
        if let user {
            if user.passwordHash != nil { methods.append("password") }
            if user.emailLinkSignin == true { methods.append("emailLink") }
            if !methods.isEmpty { providers.append("password") }
            // Identity providers linked to the account (google.com, apple.com…) are ways in too: fetchSignInMethodsForEmail
            // lists them so an app can offer the right button.
            for linked in user.linkedProviders.map(\.providerId) where !providers.contains(linked) {
                providers.append(linked)
                methods.append(linked)
            }
        }
        return IdentityToolkit.CreateAuthUriResponse(
            registered: user != nil, allProviders: providers, signinMethods: methods, sessionId: Self.randomCode(bytes: 20))
    }

    // MARK: Emulator endpoints (`--dev`)

    /// The emulator's `oobCodes` listing (`--dev`): every live emailed code with its address, link and request type.
    /// Codes appear only when ``Options/readableCodes`` is on.
    public func pendingOobCodes() async throws -> IdentityToolkit.EmulatorOobCodes {
        let all = try await codes.all(now: clock()).filter { $0.requestType != "PHONE" && $0.requestType != Self.temporaryProofType }
        return IdentityToolkit.EmulatorOobCodes(oobCodes: all.map { c in
            IdentityToolkit.EmulatorOobCodes.Code(
                email: c.email ?? "", oobCode: c.plainKey ?? "", oobLink: c.oobLink ?? "", requestType: c.requestType, newEmail: c.newEmail)
        })
    }

    /// The emulator's `verificationCodes` listing (`--dev`): every live SMS code with its number and `sessionInfo`.
    /// Codes appear only when ``Options/readableCodes`` is on.
    public func pendingVerificationCodes() async throws -> IdentityToolkit.EmulatorVerificationCodes {
        let all = try await codes.all(now: clock()).filter { $0.requestType == "PHONE" }
        return IdentityToolkit.EmulatorVerificationCodes(verificationCodes: all.map { c in
            IdentityToolkit.EmulatorVerificationCodes.Code(code: c.code ?? "", phoneNumber: c.phoneNumber ?? "", sessionInfo: c.plainKey ?? "")
        })
    }

    /// Deletes every account of the project and its refresh tokens (the emulator's `DELETE …/accounts`, `--dev`).
    public func deleteAllAccounts() async throws {
        try await store.transaction { tx in try tx.deleteAllAccounts() }
    }
}
