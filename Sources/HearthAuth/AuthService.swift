import Crypto
public import Foundation
public import HearthCore
public import HearthStore
import HearthWire
import Synchronization

/// Hearth's accounts and tokens, speaking Identity Toolkit's request and response shapes.
///
/// Every method takes the typed request body (`IdentityToolkit.SignUpRequest`, …) and returns the typed answer; failures throw
/// `AuthError` with Firebase's codes.
public final class AuthService: Sendable {
    /// The project id: the `aud` of the ID tokens this service signs, and part of their `iss`
    /// (`https://securetoken.google.com/<project>`).
    public let projectID: String
    let store: any AccountStore
    /// Signs with `keys.current`; verifies with any key of the ring.
    public let keys: KeyRing
    var key: SigningKey {
        get throws { try keys.current }
    }
    let hasher: PasswordHasher
    /// Milliseconds since 1970.
    let clock: @Sendable () -> Int64
    /// Password sign-ins per email and client address (10 per 5 minutes: whoever guesses slows only themselves, not
    /// the owner signing in from elsewhere) and per client address (100 per 5 minutes). Each attempt is taken before
    /// its password is checked and given back when it succeeds.
    let limiter: SignInLimiter
    let addressLimiter: SignInLimiter
    /// Email-enumeration protection: unknown email and wrong password both answer
    /// `INVALID_LOGIN_CREDENTIALS` (off in the emulator's options, on in `.production`). Starts from
    /// `Options.emailPrivacy`; the emulator's config endpoint can switch it (`setEmailPrivacy`).
    public var emailPrivacy: Bool { privacy.load(ordering: .relaxed) }
    private let privacy: Atomic<Bool>
    /// The behaviour chosen where Firebase's emulator and production differ (fixed for the service's lifetime;
    /// only email privacy can be switched later).
    public let options: Options
    /// Delivers out-of-band links and SMS codes.
    public let sender: any MessageSender
    /// Told when a message could not be delivered (channel, purpose, error), never its content.
    let onDeliveryFailure: @Sendable (OutgoingMessage.Channel, String, String) -> Void
    let codes: CodeBook
    /// Emails and SMS per recipient per hour (`Options.messagesPerRecipientPerHour`).
    let messageLimiter: SignInLimiter?
    /// Verification codes per client address per hour (`Options.smsPerClientAddressPerHour`).
    let smsAddressLimiter: SignInLimiter?
    /// Functions to run when accounts are created or deleted (server functions install them).
    public let events = EventHook()

    /// Where accounts (and the outbox of auth trigger events) are stored.
    public var accountStore: any AccountStore { store }

    /// How long an ID token is valid, in seconds (one hour, as Firebase's).
    public static let idTokenLifetime: Int64 = 3600

    /// How this service behaves where Firebase's emulator and production differ.
    public struct Options: Sendable {
        /// Answer `INVALID_LOGIN_CREDENTIALS` for both unknown emails and wrong passwords.
        public var emailPrivacy = false
        /// Keep one-time codes readable for the emulator listings (`--dev`); otherwise only digests are stored.
        public var readableCodes = true
        /// Hosts a `continueUrl` may point to (`UNAUTHORIZED_DOMAIN` otherwise), exactly: `localhost` only when listed;
        /// `nil` accepts any, as the emulator does.
        public var authorizedDomains: Set<String>?
        /// Hosts `sendOobCode`'s `linkDomain` may name (`INVALID_HOSTING_LINK_DOMAIN` otherwise); `nil` accepts any,
        /// as the emulator does.
        public var linkDomains: Set<String>?
        /// The path of the page that emailed links open, on `linkBase`.
        public var actionPath = "/emulator/action"
        /// Emails or SMS one address or number receives per hour before `QUOTA_EXCEEDED`
        /// (`RESET_PASSWORD_EXCEED_LIMIT` for password resets); `nil` = unlimited (emulator).
        public var messagesPerRecipientPerHour: Int?
        /// Verification codes (SMS) one client address may ask for per hour, whatever the numbers, before
        /// `TOO_MANY_ATTEMPTS_TRY_LATER`: one address cannot make the project text many numbers (SMS cost money);
        /// `nil` = unlimited (emulator).
        public var smsPerClientAddressPerHour: Int?
        /// Which identity providers' ID tokens `signInWithIdp` accepts, and how it checks them; none by default
        /// (`.emulator` reads any provider's tokens unchecked, for `--dev` only).
        public var identityProviders: IdentityProviders
        /// How many seconds after signing in (the ID token's `auth_time`) a user may still change their password or
        /// email or delete their account; later it is `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` until they sign in again, as
        /// in Firebase's production service. A stolen session then cannot lock the owner out. Anonymous users and
        /// admin calls are exempt; `nil` (the emulator) checks nothing.
        public var recentSignInWindow: Int64?

        /// Options with the emulator's defaults; every argument changes one behaviour (see each property).
        public init(
            emailPrivacy: Bool = false, readableCodes: Bool = true, authorizedDomains: Set<String>? = nil,
            actionPath: String = "/emulator/action", messagesPerRecipientPerHour: Int? = nil,
            identityProviders: IdentityProviders = IdentityProviders(), recentSignInWindow: Int64? = nil,
            linkDomains: Set<String>? = nil, smsPerClientAddressPerHour: Int? = nil
        ) {
            self.linkDomains = linkDomains
            self.smsPerClientAddressPerHour = smsPerClientAddressPerHour
            self.emailPrivacy = emailPrivacy
            self.readableCodes = readableCodes
            self.authorizedDomains = authorizedDomains
            self.actionPath = actionPath
            self.messagesPerRecipientPerHour = messagesPerRecipientPerHour
            self.identityProviders = identityProviders
            self.recentSignInWindow = recentSignInWindow
        }

        /// What a production server uses: codes stored as digests, links to `/__/auth/action`,
        /// continue URLs limited to `authorizedDomains` and `linkDomain` to `linkDomains`, ten messages per recipient
        /// per hour and twenty verification codes per client address per hour, provider tokens checked against `identityProviders` (none enabled unless given), a sign-in within
        /// the last five minutes for password and email changes and deletion, and email-enumeration protection (as
        /// Firebase has it for new projects) unless `emailPrivacy` is false.
        public static func production(
            authorizedDomains: Set<String>, emailPrivacy: Bool = true, identityProviders: IdentityProviders = IdentityProviders(),
            linkDomains: Set<String> = []
        ) -> Options {
            Options(
                emailPrivacy: emailPrivacy, readableCodes: false, authorizedDomains: authorizedDomains, actionPath: "/__/auth/action",
                messagesPerRecipientPerHour: 10, identityProviders: identityProviders, recentSignInWindow: 300, linkDomains: linkDomains,
                smsPerClientAddressPerHour: 20)
        }
    }

    /// The auth service of one project, over an account store, with the emulator's behaviour unless `options` says
    /// otherwise.
    ///
    /// - Parameters:
    ///   - projectID: the project whose tokens this service signs.
    ///   - store: where accounts, one-time codes and auth events are kept.
    ///   - keys: signs ID tokens and session cookies with its newest key; verifies with any.
    ///   - hasher: hashes and checks passwords; its `rounds` is the scrypt cost of new hashes.
    ///   - options: emulator or production behaviour (``Options/production(authorizedDomains:emailPrivacy:identityProviders:linkDomains:)``).
    ///   - sender: delivers emailed links and SMS codes (an in-memory ``OutboxSender`` by default).
    ///   - onDeliveryFailure: told the channel, purpose and error when a message could not be sent, never its text.
    ///   - attempts: where password sign-ins and messages are counted for the rate limits: this process's memory by
    ///     default; a store the nodes share (`PostgresAttemptStore`) makes the limits hold for a whole cluster.
    ///   - clock: milliseconds since 1970; inject one to test expiry.
    public init(
        projectID: String, store: any AccountStore, keys: KeyRing, hasher: PasswordHasher = PasswordHasher(),
        options: Options = Options(), sender: any MessageSender = OutboxSender(),
        onDeliveryFailure: @escaping @Sendable (OutgoingMessage.Channel, String, String) -> Void = { _, _, _ in },
        attempts: any AttemptStore = MemoryAttemptStore(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.options = options
        self.privacy = Atomic(options.emailPrivacy)
        self.codes = CodeBook(store: store, readable: options.readableCodes)
        self.limiter = SignInLimiter(store: attempts, limit: SignInLimiter.password)
        self.addressLimiter = SignInLimiter(store: attempts, limit: SignInLimiter.address)
        self.messageLimiter = options.messagesPerRecipientPerHour.map { SignInLimiter(store: attempts, limit: SignInLimiter.messages($0)) }
        self.smsAddressLimiter = options.smsPerClientAddressPerHour.map {
            SignInLimiter(store: attempts, limit: SignInLimiter.smsPerAddress($0))
        }
        self.sender = sender
        self.onDeliveryFailure = onDeliveryFailure
        self.projectID = projectID
        self.store = store
        self.keys = keys
        self.hasher = hasher
        self.clock = clock
    }

    /// A service with one signing key.
    public convenience init(
        projectID: String, store: any AccountStore, key: SigningKey, hasher: PasswordHasher = PasswordHasher(),
        options: Options = Options(), clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.init(projectID: projectID, store: store, keys: KeyRing(current: key), hasher: hasher, options: options, clock: clock)
    }

    /// Switches email-enumeration protection while the server runs (the emulator's `PATCH config`).
    public func setEmailPrivacy(_ on: Bool) { privacy.store(on, ordering: .relaxed) }

    /// An email action's continue URL, parsed as a browser parses it (`INVALID_CONTINUE_URI` when it cannot be read
    /// the same way by both) and on an authorized domain (`UNAUTHORIZED_DOMAIN`). The same check guards the link
    /// when it is sent and the action page's redirect, so an edited link cannot make the page an open redirect.
    public func authorizedContinueURL(_ text: String) throws -> ContinueURL {
        guard let url = ContinueURL(text) else { throw AuthError("INVALID_CONTINUE_URI") }
        if let allowed = options.authorizedDomains, !allowed.contains(url.host) {
            throw AuthError("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project")
        }
        return url
    }

    var issuer: String { "https://securetoken.google.com/\(projectID)" }

    // MARK: Records

    func load(_ row: AccountRow?) throws -> UserRecord? {
        guard let row else { return nil }
        if let parsed = try? JSONValue.parse(Array(row.record)), let user = UserRecord(stored: parsed) { return user }
        return try JSONDecoder().decode(UserRecord.self, from: row.record)
    }

    func save(_ user: UserRecord, in tx: any AccountTransaction, mustBeNew: Bool = false) throws {
        let row = AccountRow(uid: user.localId, email: user.email, phoneNumber: user.phoneNumber, record: try JSONEncoder().encode(user))
        var identities = user.identities
        if !identities.isEmpty {
            // Another account's identity must be in the index before the store can refuse it.
            try completeIdentityIndex(in: tx)
            // Imports did not check identities before they were indexed, so an old data folder can have two accounts
            // with one identity. The index names the first; the other keeps it in its record, and must stay savable.
            // The stored record is read only then: for an identity the index gives to another account.
            var previous: Set<AccountIdentity>?
            identities = try identities.filter { identity in
                guard let holder = try tx.account(identity: identity), holder.uid != user.localId else { return true }
                let had = try previous ?? Set(load(tx.account(uid: user.localId))?.identities ?? [])
                previous = had
                return !had.contains(identity)
            }
        }
        let created = events.functions.flatMap { hook in hook.created.isEmpty ? nil : hook }
        let isNew = try created != nil && (mustBeNew || tx.account(uid: user.localId) == nil)
        do {
            try tx.save(row, identities: identities, mustBeNew: mustBeNew)
            if isNew, let created { try enqueue(user, for: created.created, in: tx, wake: created.wake) }
        } catch let conflict as AccountConflict {
            switch conflict {
            case .uid: throw AuthError("DUPLICATE_LOCAL_ID")
            case .email: throw AuthError("EMAIL_EXISTS")
            case .phoneNumber: throw AuthError("PHONE_NUMBER_EXISTS")
            case .identity: throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
            }
        }
    }

    /// The account linked to this provider identity.
    func user(linking identity: AccountIdentity, in tx: any AccountTransaction) throws -> UserRecord? {
        try completeIdentityIndex(in: tx)
        return try load(tx.account(identity: identity))
    }

    /// Indexes the provider identities of accounts saved before the store indexed them, inside the
    /// caller's transaction: once per data folder, by the first such transaction that commits (a
    /// refused link rolls it back with everything else); a one-row lookup afterwards. Accounts an
    /// older binary saved or deleted after a rollback are indexed again the same way.
    func completeIdentityIndex(in tx: any AccountTransaction) throws {
        guard try tx.identityIndexIsComplete() else { return try indexAllIdentities(in: tx) }
        // Accounts an older binary wrote after a rollback: usually none (one indexed lookup).
        let unindexed = try tx.unindexedAccounts()
        guard !unindexed.isEmpty else { return }
        let accounts = try unindexed.compactMap { uid in try load(tx.account(uid: uid)).map { (uid, $0.identities) } }
        try tx.reindex(unindexed, identities: accounts)
    }

    private func indexAllIdentities(in tx: any AccountTransaction) throws {
        var linked: [(uid: String, identities: [AccountIdentity])] = []
        var after: String?
        while true {
            let rows = try tx.accounts(after: after, limit: 500)
            for row in rows {
                if let user = try load(row), !user.linkedProviders.isEmpty { linked.append((user.localId, user.identities)) }
            }
            guard rows.count == 500, let last = rows.last else { break }
            after = last.uid
        }
        try tx.completeIdentityIndex(linked)
    }

    /// Outbox events for `user` (without password hash and salt), in the caller's transaction.
    func enqueue(_ user: UserRecord, for functions: [String], in tx: any AccountTransaction, wake: @Sendable () -> Void) throws {
        var visible = user
        visible.passwordHash = nil
        visible.salt = nil
        visible.passwordCost = nil
        visible.firebaseScrypt = nil
        visible.importedHash = nil
        let payload = Array(try JSONEncoder().encode(visible))
        let now = clock()
        for function in functions { try tx.enqueueEvent(function: function, payload: payload, at: now) }
        wake()
    }

    /// Deletes an account in `tx`, enqueueing the deletion triggers. False if there was none.
    func deleteAccount(uid: String, in tx: any AccountTransaction) throws -> Bool {
        guard let hook = events.functions, !hook.deleted.isEmpty else { return try tx.deleteAccount(uid: uid) }
        guard let old = try load(tx.account(uid: uid)) else { return false }
        guard try tx.deleteAccount(uid: uid) else { return false }
        try enqueue(old, for: hook.deleted, in: tx, wake: hook.wake)
        return true
    }

    static func newUID() -> String {
        let chars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var rng = SystemRandomNumberGenerator()
        return String(decoding: (0..<28).map { _ in chars[Int.random(in: 0..<chars.count, using: &rng)] }, as: UTF8.self)
    }

    /// `local@domain` with no whitespace, control characters or the delimiters that would let an
    /// address smuggle extra recipients or headers into a mail (`<>()[],;:\"`), at most 254 bytes.
    static func isValidEmail(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, s.utf8.count <= 254 else { return false }
        let forbidden = Set("<>()[],;:\\\"".unicodeScalars)
        return s.unicodeScalars.allSatisfy { c in
            !c.properties.isWhitespace && !(c.value < 0x20 || c.value == 0x7F) && !forbidden.contains(c)
                && !(0x80...0x9F).contains(c.value)
        }
    }

    // MARK: Tokens

    /// Signs an ID token and stores a new refresh token.
    /// - Parameter authTime: when the session's user last proved who they are (seconds; the ID
    ///   tokens' `auth_time`, kept by every refresh of this session): now for a sign-in, the
    ///   presented token's for a change made in a session (`authTime(keeping:before:after:)`).
    func issueTokens(
        for user: inout UserRecord, provider: String, extraClaims: [JSONMember] = [], in tx: any AccountTransaction, now: Int64,
        authTime: Int64? = nil
    ) throws -> SessionTokens {
        user.lastRefreshAt = now
        let authTime = authTime ?? now / 1000
        let idToken = try key.sign(claims(for: user, provider: provider, extraClaims: extraClaims, authTime: authTime, now: now))
        var rng = SystemRandomNumberGenerator()
        let refreshToken = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let data = JSONValue.object([
            JSONMember("provider", .string(provider)), JSONMember("claims", .object(extraClaims)),
            JSONMember("issuedAt", .int(now / 1000)), JSONMember("authTime", .int(authTime)),
        ])
        try tx.saveRefreshToken(RefreshTokenRow(hash: Self.digest(refreshToken), uid: user.localId, data: Data(data.jsonBytes)))
        return SessionTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: Self.idTokenLifetime)
    }

    static func digest(_ token: String) -> Data { Data(SHA256.hash(data: Array(token.utf8))) }

    /// The ID token payload (spec A.5): profile claims, custom claims, then the reserved ones.
    func claims(for user: UserRecord, provider: String, extraClaims: [JSONMember], authTime: Int64, now: Int64) -> JSONValue {
        var m: [JSONMember] = []
        func set(_ key: String, _ value: JSONValue) {
            m.removeAll { $0.key == key }
            m.append(JSONMember(key, value))
        }
        if let name = user.displayName { set("name", .string(name)) }
        if let picture = user.photoUrl { set("picture", .string(picture)) }
        for c in user.customClaims { set(c.key, c.value) }
        for c in extraClaims { set(c.key, c.value) }
        let seconds = now / 1000
        set("iss", .string(issuer))
        set("aud", .string(projectID))
        set("auth_time", .int(authTime))
        set("user_id", .string(user.localId))
        set("sub", .string(user.localId))
        set("iat", .int(seconds))
        set("exp", .int(seconds + Self.idTokenLifetime))
        if let email = user.email {
            set("email", .string(email))
            set("email_verified", .bool(user.emailVerified))
        }
        if let phone = user.phoneNumber { set("phone_number", .string(phone)) }
        if provider == "anonymous" { set("provider_id", .string("anonymous")) }
        var identities: [JSONMember] = []
        if let email = user.email { identities.append(JSONMember("email", .array([.string(email)]))) }
        if let phone = user.phoneNumber { identities.append(JSONMember("phone", .array([.string(phone)]))) }
        for p in user.linkedProviders { identities.append(JSONMember(p.providerId, .array([.string(p.rawId)]))) }
        set("firebase", .object([JSONMember("identities", .object(identities)), JSONMember("sign_in_provider", .string(provider))]))
        return .object(m)
    }

    /// Checks a Hearth-signed ID token without touching the store (signature, issuer, audience,
    /// expiry): the claims, or nil. The database uses this on every request that carries a token.
    public func verifiedClaims(_ token: String, now: Int64? = nil) -> JSONValue? {
        guard let checked = signedClaims(token), checked.exp > (now ?? clock()) / 1000 else { return nil }
        return checked.claims
    }

    /// A token signed by one of our keys for this project, naming a user: its claims, uid and
    /// times. Expiry is left to the caller (the two callers answer it differently).
    func signedClaims(_ token: String) -> (claims: JSONValue, uid: String, iat: Int64, exp: Int64)? {
        guard let claims = keys.verifiedPayload(token), claims["iss"]?.stringValue == issuer,
            claims["aud"]?.stringValue == projectID, let uid = claims["sub"]?.stringValue, !uid.isEmpty,
            case .int(let iat)? = claims["iat"], case .int(let exp)? = claims["exp"]
        else { return nil }
        return (claims, uid, iat, exp)
    }

    /// Full check of an ID token sent to an auth endpoint: also the user exists, is enabled and
    /// the token was issued after `validSince`.
    ///
    /// With `recentSignIn` (a password or email change, or deletion, asked by the user), the token must also come
    /// from a sign-in within `options.recentSignInWindow`, unless the user is anonymous.
    func user(forIDToken token: String?, in tx: any AccountTransaction, now: Int64, recentSignIn: Bool = false) throws -> UserRecord {
        try session(forIDToken: token, in: tx, now: now, recentSignIn: recentSignIn).user
    }

    /// The user of an ID token and when its session signed in (`auth_time`; 0 if the token has none), checked as
    /// `user(forIDToken:in:now:recentSignIn:)` checks it.
    func session(forIDToken token: String?, in tx: any AccountTransaction, now: Int64, recentSignIn: Bool = false) throws
        -> (user: UserRecord, authTime: Int64)
    {
        guard let token, !token.isEmpty else { throw AuthError("MISSING_ID_TOKEN") }
        guard let checked = signedClaims(token) else { throw AuthError.invalidIDToken }
        if checked.exp <= now / 1000 { throw AuthError("TOKEN_EXPIRED") }
        guard let user = try load(tx.account(uid: checked.uid)) else { throw AuthError.userNotFound }
        if user.disabled { throw AuthError("USER_DISABLED") }
        if checked.iat < user.validSince { throw AuthError("TOKEN_EXPIRED") }
        let authTime: Int64 = if case .int(let t)? = checked.claims["auth_time"] { t } else { 0 }
        if recentSignIn { try requireRecentSignIn(user, authTime: authTime, now: now) }
        return (user, authTime)
    }

    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the session signed in within `options.recentSignInWindow` (or the
    /// user is anonymous, or the window is off).
    func requireRecentSignIn(_ user: UserRecord, authTime: Int64, now: Int64) throws {
        guard let window = options.recentSignInWindow, !user.isAnonymous else { return }
        if now / 1000 - authTime > window { throw AuthError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") }
    }

    /// The `auth_time` (nil: now) for the tokens a change made in a session issues. An anonymous user's first
    /// credential is its first sign-in with one. A change that ended the account's other sessions (`validSince`
    /// moved) passed a recent sign-in check and counts as one: tokens must not look older than the account's
    /// `validSince`, which firebase-admin's revocation check compares with `auth_time`. Anything else keeps the
    /// session's time.
    static func authTime(keeping signedInAt: Int64, before: UserRecord, after: UserRecord) -> Int64? {
        before.isAnonymous || after.validSince != before.validSince ? nil : signedInAt
    }

    static func provider(ofIDToken token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count >= 2, let payload = Base64URL.decode(parts[1]), let claims = try? JSONValue.parse(payload) else { return nil }
        return claims["firebase"]?["sign_in_provider"]?.stringValue
    }

    // MARK: Public keys

    /// The JWKS that verifies Hearth's ID tokens.
    public var jwks: JSONValue {
        get throws { try keys.jwks }
    }
}
