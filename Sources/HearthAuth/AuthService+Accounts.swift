public import HearthCore
import HearthStore
public import HearthWire

extension AuthService {
    // MARK: accounts:signUp

    /// `accounts:signUp`. Without privilege: an anonymous account (no email or password), an email and password
    /// account, or, with an `idToken`, that user (an anonymous one, say) gaining an email and password and keeping its
    /// uid; the answer carries ID and refresh tokens. `privileged` (admin `create_user`) takes any attributes,
    /// `localId` included, and issues no tokens. Throws `EMAIL_EXISTS`, `WEAK_PASSWORD`, `INVALID_EMAIL`, `MISSING_EMAIL`, `MISSING_PASSWORD`, and
    /// `UNEXPECTED_PARAMETER` for a `localId` without privilege.
    public func signUp(_ request: IdentityToolkit.SignUpRequest, privileged: Bool) async throws -> IdentityToolkit.SignUpResponse {
        let now = clock()
        if !privileged, request.localId != nil { throw AuthError("UNEXPECTED_PARAMETER", "User ID") }
        if privileged { return try await create(request, now: now) }
        let email = request.email
        let password = request.password
        if let idToken = request.idToken {
            return try await linkEmailPassword(idToken: idToken, email: email, password: password, displayName: request.displayName, now: now)
        }
        let anonymous = email == nil && password == nil
        var hashed: PasswordCredentials?
        if !anonymous {
            try Self.checkCredentials(email: email, password: password)
            // Hashing is slow on purpose: do it before the transaction, not inside it.
            hashed = try await hasher.hash(password!)
        }
        let credentials = hashed
        return try await store.transaction { tx in
            var user = UserRecord(localId: Self.newUID(), createdAt: now, validSince: now / 1000)
            user.lastLoginAt = now
            if let displayName = request.displayName { user.displayName = displayName }
            if let email, let credentials {
                user.email = email.lowercased()
                if try tx.account(email: user.email!) != nil { throw AuthError("EMAIL_EXISTS") }
                if password!.count < 6 { throw AuthError.weakPassword }
                user.setPassword(credentials, at: now)
            }
            let tokens = try self.issueTokens(for: &user, provider: anonymous ? "anonymous" : "password", in: tx, now: now)
            try self.save(user, in: tx, mustBeNew: true)
            return IdentityToolkit.SignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName, tokens: tokens)
        }
    }

    /// Sign-up checks in Firebase's order.
    static func checkCredentials(email: String?, password: String?) throws {
        if email == "" && password == "" { throw AuthError("INVALID_EMAIL") }
        guard let email, !email.isEmpty else { throw AuthError("MISSING_EMAIL") }
        guard let password, !password.isEmpty else { throw AuthError("MISSING_PASSWORD") }
        if !isValidEmail(email) { throw AuthError("INVALID_EMAIL") }
        // EMAIL_EXISTS comes before WEAK_PASSWORD; callers check both in that order.
    }

    /// `signUp` with an `idToken`: the (anonymous) user keeps its uid and gains email + password.
    func linkEmailPassword(
        idToken: String, email: String?, password: String?, displayName: String?, now: Int64
    ) async throws -> IdentityToolkit.SignUpResponse {
        try Self.checkCredentials(email: email, password: password)
        let credentials = try await hasher.hash(password!)
        return try await store.transaction { tx in
            // A credential change: outside the emulator it needs a recent sign-in, unless the user is anonymous (the
            // trial user's upgrade), as in Firebase's production service.
            var (user, signedInAt) = try self.session(forIDToken: idToken, in: tx, now: now, recentSignIn: true)
            let before = user
            let lower = email!.lowercased()
            if let other = try tx.account(email: lower), other.uid != user.localId { throw AuthError("EMAIL_EXISTS") }
            if password!.count < 6 { throw AuthError.weakPassword }
            // Replacing a password, or an email the account already had, is a credential change as in
            // accounts:update: every earlier session ends. Linking to an anonymous or phone account ends none.
            if user.passwordHash != nil || (user.email != nil && user.email != lower) { user.validSince = now / 1000 }
            user.email = lower
            user.emailVerified = false
            user.setPassword(credentials, at: now)
            if let displayName { user.displayName = displayName }
            user.lastLoginAt = now
            let authTime = Self.authTime(keeping: signedInAt, before: before, after: user)
            let tokens = try self.issueTokens(for: &user, provider: "password", in: tx, now: now, authTime: authTime)
            try self.save(user, in: tx)
            return IdentityToolkit.SignUpResponse(localId: user.localId, email: lower, displayName: user.displayName, tokens: tokens)
        }
    }

    /// Admin `create_user`: any attributes, no tokens.
    func create(_ request: IdentityToolkit.SignUpRequest, now: Int64) async throws -> IdentityToolkit.SignUpResponse {
        let uid = request.localId ?? Self.newUID()
        if uid.isEmpty || uid.utf8.count > 128 { throw AuthError("INVALID_LOCAL_ID") }
        var user = UserRecord(localId: uid, createdAt: now, validSince: now / 1000)
        if let email = request.email {
            guard Self.isValidEmail(email) else { throw AuthError("INVALID_EMAIL") }
            user.email = email.lowercased()
        }
        if let password = request.password {
            guard password.count >= 6 else { throw AuthError.weakPassword }
            let credentials = try await hasher.hash(password)
            user.setPassword(credentials, at: now)
        }
        user.displayName = request.displayName
        user.photoUrl = request.photoUrl
        if let phone = request.phoneNumber {
            // The format phone sign-in accepts, so an account an admin creates can also sign in by SMS.
            guard Self.isValidPhone(phone) else { throw AuthError("INVALID_PHONE_NUMBER", "Invalid format.") }
            user.phoneNumber = phone
        }
        user.emailVerified = request.emailVerified ?? false
        user.disabled = request.disabled ?? false
        let created = user
        try await store.transaction { tx in try self.save(created, in: tx, mustBeNew: true) }
        return IdentityToolkit.SignUpResponse(localId: uid, email: user.email, displayName: user.displayName, tokens: nil)
    }

    // MARK: accounts:signInWithPassword

    /// What an unknown email's password is checked against: no password has this hash.
    static let decoyHash = String(repeating: "A", count: 43) + "="  // 32 zero bytes
    static let decoySalt = String(repeating: "A", count: 22) + "=="  // 16 zero bytes

    /// - Parameter clientAddress: the caller's IP address, for the rate limits: per address, and per account and
    ///   address (someone guessing a password locks out themselves, not the owner signing in from elsewhere).
    ///
    /// With email-enumeration protection, an unknown email, an account without a password and a wrong password all
    /// answer `INVALID_LOGIN_CREDENTIALS` after the same work, and `USER_DISABLED` needs the right password.
    public func signInWithPassword(
        _ request: IdentityToolkit.SignInWithPasswordRequest, clientAddress: String? = nil
    ) async throws -> IdentityToolkit.SignInWithPasswordResponse {
        let now = clock()
        guard let email = request.email else { throw AuthError("MISSING_EMAIL") }
        if !Self.isValidEmail(email) { throw AuthError("INVALID_EMAIL") }
        guard let password = request.password, !password.isEmpty else { throw AuthError("MISSING_PASSWORD") }
        let lower = email.lowercased()
        let privacy = emailPrivacy
        // Attempts are taken before any password is hashed and given back only on success: forty concurrent guesses
        // cannot all pass a check made before the first of them failed.
        let accountKey = clientAddress.map { lower + " " + $0 } ?? lower
        if let clientAddress { try await addressLimiter.reserve(clientAddress, now: now) }
        do {
            try await limiter.reserve(accountKey, now: now)
        } catch {
            if let clientAddress { await addressLimiter.release(clientAddress, at: now) }
            throw error
        }
        // Gives the attempt back: the password was right (or never checked).
        func release() async {
            await limiter.release(accountKey, at: now)
            if let clientAddress { await addressLimiter.release(clientAddress, at: now) }
        }
        func failed(_ code: String) -> AuthError { AuthError(privacy ? "INVALID_LOGIN_CREDENTIALS" : code) }
        let found = try await store.transaction { tx in try self.load(tx.account(email: lower)) }
        // With enumeration protection, an unknown email (or one without a password) takes as long as a wrong password.
        func decoy() async {
            if privacy { _ = await hasher.verify(password, hash: Self.decoyHash, salt: Self.decoySalt, cost: hasher.rounds) }
        }
        guard let user = found else {
            await decoy()
            throw failed("EMAIL_NOT_FOUND")
        }
        if user.disabled && !privacy {
            await release()
            throw AuthError("USER_DISABLED")
        }
        // The hash runs outside the store's transaction: it is slow on purpose.
        let matches: Bool
        var upgrade: PasswordCredentials?
        if let hash = user.passwordHash, let salt = user.salt {
            if let legacy = user.firebaseScrypt {
                matches = await legacy.verify(password, hash: hash, salt: salt)
                // Move imported users to Hearth's own hash now that the password is known.
                if matches { upgrade = try await hasher.hash(password) }
            } else if let imported = user.importedHash {
                matches = await imported.verify(password, hash: hash, salt: salt)
                if matches { upgrade = try await hasher.hash(password) }
            } else {
                matches = await hasher.verify(password, hash: hash, salt: salt, cost: user.passwordCost)
                // A hash made before the server's cost changed is made again with the new one.
                if matches && hasher.needsRehash(cost: user.passwordCost) { upgrade = try await hasher.hash(password) }
            }
        } else {
            await decoy()
            matches = false
        }
        guard matches else { throw failed("INVALID_PASSWORD") }
        await release()
        await limiter.reset(accountKey)
        // Only whoever knows the password learns that the account is disabled.
        if user.disabled { throw AuthError("USER_DISABLED") }
        let rehashed = upgrade
        return try await store.transaction { tx in
            guard var current = try self.load(tx.account(uid: user.localId)) else { throw AuthError(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND") }
            if let rehashed, current.passwordHash == user.passwordHash { current.rehashPassword(rehashed) }
            current.lastLoginAt = now
            let tokens = try self.issueTokens(for: &current, provider: "password", in: tx, now: now)
            try self.save(current, in: tx)
            return IdentityToolkit.SignInWithPasswordResponse(
                localId: current.localId, email: lower, displayName: current.displayName, tokens: tokens)
        }
    }

    // MARK: securetoken v1/token

    /// Secure Token `v1/token`: a new ID token (and the same refresh token) for `grant_type=refresh_token`. Throws
    /// `MISSING_GRANT_TYPE`, `INVALID_GRANT_TYPE`, `MISSING_REFRESH_TOKEN`, `INVALID_REFRESH_TOKEN` (unknown token),
    /// `USER_NOT_FOUND`, `USER_DISABLED`, and `TOKEN_EXPIRED` when the user's tokens were revoked after it was issued.
    public func refresh(_ request: IdentityToolkit.RefreshTokenRequest) async throws -> IdentityToolkit.RefreshTokenResponse {
        let now = clock()
        let token = try Self.refreshTokenParameter(request)
        let grant = try await store.read { tx in try self.refreshGrant(token, in: tx) }
        let answer = try refreshAnswer(grant, refreshToken: token, now: now)
        if lastRefreshIsDue(grant.user, now: now) {
            // lastRefreshAt is metadata: written at most once a minute per user, not on every refresh.
            let uid = grant.user.localId
            try await store.transaction { tx in
                guard var current = try self.load(tx.account(uid: uid)) else { return }
                current.lastRefreshAt = now
                try self.save(current, in: tx)
            }
        }
        return answer
    }

    /// `refresh`'s answer computed on the calling thread without suspending (for a thread-pool job): nil when the
    /// account store cannot read that way or the user's `lastRefreshAt` is due to be written; then call `refresh`.
    /// Throws exactly what `refresh` would.
    public func refreshNow(_ request: IdentityToolkit.RefreshTokenRequest) throws -> IdentityToolkit.RefreshTokenResponse? {
        let now = clock()
        let token = try Self.refreshTokenParameter(request)
        guard let grant = try store.readNow({ tx in try self.refreshGrant(token, in: tx) }) else { return nil }
        // Checked before signing: the write needs `refresh`, which signs on its own.
        if lastRefreshIsDue(grant.user, now: now) { return nil }
        return try refreshAnswer(grant, refreshToken: token, now: now)
    }

    private static func refreshTokenParameter(_ request: IdentityToolkit.RefreshTokenRequest) throws -> String {
        guard let grantType = request.grantType, !grantType.isEmpty else { throw AuthError("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw AuthError("INVALID_GRANT_TYPE") }
        guard let refreshToken = request.refreshToken, !refreshToken.isEmpty else { throw AuthError("MISSING_REFRESH_TOKEN") }
        return refreshToken
    }

    /// The user and the stored facts a refresh token stands for.
    private struct RefreshGrant: Sendable {
        var user: UserRecord
        var issuedAt: Int64
        /// When the session signed in (seconds): every refreshed token carries it as `auth_time`.
        var authTime: Int64
        var provider: String
        var claims: [JSONMember]
    }

    private func refreshGrant(_ refreshToken: String, in tx: any AccountTransaction) throws -> RefreshGrant {
        guard let row = try tx.refreshToken(hash: Self.digest(refreshToken)),
            let data = try? JSONValue.parse(Array(row.data))
        else { throw AuthError("INVALID_REFRESH_TOKEN") }
        // Tokens of deleted users are kept orphaned (uid "") so they answer USER_NOT_FOUND and can
        // never reach a new account that reuses the uid.
        guard !row.uid.isEmpty, let user = try self.load(tx.account(uid: row.uid)) else { throw AuthError("USER_NOT_FOUND") }
        var claims: [JSONMember] = []
        if case .object(let m)? = data["claims"] { claims = m }
        // A refresh token from before `authTime` was stored counts from when it was issued (the session's sign-in;
        // refresh tokens are not replaced), a time the server set and nothing moves.
        let issuedAt = Self.storedSeconds(data["issuedAt"]) ?? 0
        return RefreshGrant(
            user: user, issuedAt: issuedAt, authTime: Self.storedSeconds(data["authTime"]) ?? issuedAt,
            provider: data["provider"]?.stringValue ?? "password", claims: claims)
    }

    /// A time stored with a refresh token (written as an integer; read as leniently as it always was).
    private static func storedSeconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let i)?: i
        case .double(let d)?: Int64(exactly: d.rounded(.down))
        case .string(let s)?: Int64(s)
        default: nil
        }
    }

    private func refreshAnswer(_ grant: RefreshGrant, refreshToken: String, now: Int64) throws -> IdentityToolkit.RefreshTokenResponse {
        let user = grant.user
        if user.disabled { throw AuthError("USER_DISABLED") }
        if grant.issuedAt < user.validSince { throw AuthError("TOKEN_EXPIRED") }
        // Signing (~0.25 ms of RSA) happens outside any transaction, so refreshes sign in parallel.
        let idToken = try key.sign(claims(for: user, provider: grant.provider, extraClaims: grant.claims, authTime: grant.authTime, now: now))
        return IdentityToolkit.RefreshTokenResponse(
            idToken: idToken, expiresIn: Self.idTokenLifetime, refreshToken: refreshToken, userID: user.localId, projectID: projectID)
    }

    private func lastRefreshIsDue(_ user: UserRecord, now: Int64) -> Bool {
        now - (user.lastRefreshAt ?? 0) > Self.lastRefreshGranularity
    }

    static let lastRefreshGranularity: Int64 = 60_000

    // MARK: accounts:lookup

    /// `accounts:lookup`: the user of the body's `idToken`; `privileged` callers may instead ask by `localId`,
    /// `email`, `phoneNumber` or `federatedUserId` (lists), and unknown ones are left out of `users`.
    public func lookup(_ request: IdentityToolkit.GetAccountInfoRequest, privileged: Bool) async throws -> IdentityToolkit.GetAccountInfoResponse {
        let now = clock()
        let users: [UserRecord] = try await store.transaction { tx in
            if !privileged || request.idToken != nil {
                return [try self.user(forIDToken: request.idToken, in: tx, now: now)]
            }
            var out: [UserRecord] = []
            var seen = Set<String>()
            func add(_ row: AccountRow?) throws {
                if let u = try self.load(row), seen.insert(u.localId).inserted { out.append(u) }
            }
            for uid in request.localId ?? [] { try add(tx.account(uid: uid)) }
            for email in request.email ?? [] { try add(tx.account(email: email.lowercased())) }
            for phone in request.phoneNumber ?? [] { try add(tx.account(phoneNumber: phone)) }
            for wanted in request.federatedUserId ?? [] {
                guard let provider = wanted.providerId, !provider.isEmpty, let rawId = wanted.rawId, !rawId.isEmpty else { continue }
                let identity = AccountIdentity(providerId: provider, rawId: rawId)
                if let user = try self.user(linking: identity, in: tx), seen.insert(user.localId).inserted { out.append(user) }
            }
            return out
        }
        return IdentityToolkit.GetAccountInfoResponse(users: users.map(\.userInfo))
    }

    // MARK: accounts:delete

    /// `accounts:delete`: the `idToken`'s user (for an unprivileged caller, within
    /// ``Options/recentSignInWindow`` of signing in), or for `privileged` callers without an `idToken` the body's
    /// `localId` (`MISSING_LOCAL_ID` without one). Throws
    /// `USER_NOT_FOUND` when there is no such account.
    public func delete(_ request: IdentityToolkit.DeleteAccountRequest, privileged: Bool) async throws -> IdentityToolkit.DeleteAccountResponse {
        let now = clock()
        try await store.transaction { tx in
            let uid: String
            if privileged, request.idToken == nil {
                guard let id = request.localId, !id.isEmpty else { throw AuthError("MISSING_LOCAL_ID") }
                uid = id
            } else {
                uid = try self.user(forIDToken: request.idToken, in: tx, now: now, recentSignIn: !privileged).localId
            }
            if try !self.deleteAccount(uid: uid, in: tx) { throw AuthError.userNotFound }
        }
        return IdentityToolkit.DeleteAccountResponse()
    }

    // MARK: accounts:batchGet

    /// v3 `downloadAccount`: the page asked for in the body (`maxResults`, `nextPageToken`).
    public func downloadAccount(_ request: IdentityToolkit.DownloadAccountRequest) async throws -> IdentityToolkit.DownloadAccountResponse {
        var maxResults: Int?
        switch request.maxResults {
        case .unreadable?: throw AuthError("INVALID_PAGE_SELECTION")
        case .count(let n)?: maxResults = Int(clamping: n)
        case nil: break
        }
        return try await batchGet(maxResults: maxResults, pageToken: request.nextPageToken)
    }

    /// `accounts:batchGet`: up to `maxResults` accounts (1-1000, default 20) in uid order after `pageToken`, with
    /// `nextPageToken` while there are more; `INVALID_PAGE_SELECTION` outside that range.
    /// The controller serves it to admin callers only.
    public func batchGet(maxResults: Int?, pageToken: String?) async throws -> IdentityToolkit.DownloadAccountResponse {
        let limit = maxResults ?? 20
        guard (1...1000).contains(limit) else { throw AuthError("INVALID_PAGE_SELECTION") }
        let page = try await accountsPage(after: pageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
        return IdentityToolkit.DownloadAccountResponse(users: page.users.map(\.userInfo), nextPageToken: page.next)
    }

    /// Up to `limit` accounts in uid order after `after`, and the uid to continue after when there are more.
    func accountsPage(after: String?, limit: Int) async throws -> (users: [UserRecord], next: String?) {
        let rows = try await store.transaction { tx in try tx.accounts(after: after, limit: limit + 1) }
        let page = rows.prefix(limit)
        return (try page.compactMap { try load($0) }, rows.count > limit ? page.last?.uid : nil)
    }

    /// One account as `hearth users export` sees it.
    public struct ExportedAccount: Sendable {
        /// batchGet's user JSON without `passwordHash` and `salt`.
        public var user: JSONValue
        /// The password's hash when it is Hearth's own (standard scrypt with ``PasswordCredentials/cost``).
        public var password: PasswordCredentials?
        /// The password's hash is still the one an import brought (no sign-in since), in another format.
        public var hasImportedHash: Bool
    }

    /// A page of accounts for `hearth users export`, with the password hashes made here.
    public func exportPage(after: String?, limit: Int) async throws -> (accounts: [ExportedAccount], next: String?) {
        let page = try await accountsPage(after: after, limit: limit)
        var accounts: [ExportedAccount] = []
        for user in page.users {
            guard case .object(var m) = user.userInfoJSON else { continue }
            m.removeAll { $0.key == "passwordHash" || $0.key == "salt" }
            var password: PasswordCredentials?
            if let hash = user.passwordHash, let salt = user.salt, user.firebaseScrypt == nil, user.importedHash == nil {
                password = PasswordCredentials(hash: hash, salt: salt, cost: user.passwordCost ?? PasswordHasher.legacyCost)
            }
            accounts.append(ExportedAccount(
                user: .object(m), password: password, hasImportedHash: user.firebaseScrypt != nil || user.importedHash != nil))
        }
        return (accounts, page.next)
    }
}
