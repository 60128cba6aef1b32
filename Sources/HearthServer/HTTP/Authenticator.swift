import Foundation
import HearthAuth
import HearthConsole
import HearthCore
import Synchronization

/// Turns credentials into a ``Caller`` under one policy, for the database (REST and realtime), storage,
/// functions, auth's admin calls and links. Each product maps a ``Refusal`` to its own wire.
///
/// The policy:
/// - the admin credential is compared in constant time; so is a console session's (`hcs.…`, which
///   ``ConsoleController`` puts on requests that carry its cookie); in `--dev` the Firebase emulators' admin
///   credentials count too (`owner` in any case, and Google OAuth access tokens `ya29.…`, which SDKs holding
///   real credentials send);
/// - an ID token must carry Hearth's signature, except in `--dev`, where unsigned ones are decoded as the
///   emulators do; a token whose `exp` has passed is refused as expired, signed or not;
/// - checked tokens are cached until they expire (verifying was ~9 % of a rules-checked PUT), in one
///   bounded cache shared by every product.
///
/// ```swift
/// let authenticator = Authenticator(adminToken: "s3cret", dev: false, verifier: auth, clock: { Int64(Date().timeIntervalSince1970 * 1000) })
/// switch try authenticator.caller(request.authorizationToken()) {
/// case .admin: …
/// case .user(let auth): …   // auth["uid"]
/// case .signedOut: …
/// }
/// ```
final class Authenticator: Sendable {
    /// Why a credential was not accepted.
    enum Refusal: Error, Sendable, Equatable {
        /// Not the admin credential and not an ID token this server accepts.
        case invalid
        /// An ID token whose `exp` has passed.
        case expired
    }

    private let adminToken: String
    private let dev: Bool
    private let verifier: AuthService?
    /// The console's sessions, which count as the admin credential while they last.
    let sessions: ConsoleSessions?
    /// Milliseconds since 1970.
    private let clock: @Sendable () -> Int64
    private let cache: Mutex<[String: Entry]>
    private let capacity: Int

    private struct Entry {
        var auth: JSONValue
        /// Seconds since 1970 after which the token has expired (nil: the token says nothing).
        var expires: Int64?
    }

    /// Tokens longer than this are refused without being decoded.
    static let maxTokenBytes = 8192

    init(
        adminToken: String, dev: Bool, verifier: AuthService?, sessions: ConsoleSessions? = nil, clock: @escaping @Sendable () -> Int64,
        capacity: Int = 4096
    ) {
        self.adminToken = adminToken
        self.sessions = sessions
        self.dev = dev
        self.verifier = verifier
        self.clock = clock
        self.capacity = capacity
        cache = Mutex([:])
    }

    /// Whether `credential` is the admin credential.
    func isAdmin(_ credential: String?) -> Bool {
        guard let credential else { return false }
        if constantTimeEquals(credential, adminToken) { return true }
        if let sessions, credential.hasPrefix(ConsoleSessions.credentialPrefix) {
            let cookie = String(credential.dropFirst(ConsoleSessions.credentialPrefix.count))
            return sessions.check(cookie, now: Date(timeIntervalSince1970: TimeInterval(clock()) / 1000)) != nil
        }
        return dev && (credential.lowercased() == "owner" || credential.hasPrefix("ya29."))
    }

    /// The caller `credential` stands for: nil or empty is ``Caller/signedOut``.
    func caller(_ credential: String?) throws(Refusal) -> Caller {
        guard let credential, !credential.isEmpty else { return .signedOut }
        if isAdmin(credential) { return .admin }
        return .user(try user(credential))
    }

    /// The rules' `auth` variable for an ID token (not the admin credential: see ``isAdmin(_:)``).
    func user(_ token: String) throws(Refusal) -> JSONValue {
        let entry = try checked(token)
        if let expires = entry.expires, expires <= clock() / 1000 { throw .expired }
        return entry.auth
    }

    private func checked(_ token: String) throws(Refusal) -> Entry {
        if let hit = cache.withLock({ $0[token] }) { return hit }
        guard token.utf8.count <= Self.maxTokenBytes else { throw .invalid }
        let entry: Entry
        if let claims = verifier?.verifiedClaims(token), let auth = IDTokenClaims.authVariable(claims: claims),
            case .int(let exp)? = claims["exp"]
        {
            entry = Entry(auth: auth, expires: exp)
        } else if dev, let auth = IDTokenClaims.authVariable(fromUnverified: token) {
            // Unsigned: its `exp` (if any) is honoured all the same.
            if case .int(let exp)? = auth["token"]?["exp"] {
                entry = Entry(auth: auth, expires: exp)
            } else {
                entry = Entry(auth: auth, expires: nil)
            }
        } else {
            // Say "expired" for a token that has a past `exp` (its signature no longer verifies once it has
            // expired), as Firebase does, whether or not it was seen while valid; it grants nothing either way.
            if case .int(let exp)? = IDTokenClaims.authVariable(fromUnverified: token)?["token"]?["exp"], exp <= clock() / 1000 {
                throw .expired
            }
            throw .invalid
        }
        cache.withLock { c in
            if c.count >= capacity { c.removeAll(keepingCapacity: true) }
            c[token] = entry
        }
        return entry
    }
}

extension Authenticator {
    /// The server's policy: its admin credential and `--dev`, with ID tokens verified by `verifier`.
    convenience init(
        _ configuration: ServerConfiguration, verifier: AuthService?, sessions: ConsoleSessions? = nil,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.init(adminToken: configuration.adminToken, dev: configuration.dev, verifier: verifier, sessions: sessions, clock: clock)
    }
}
