/// Public: `Date` (a session's expiry and the clock every call takes).
public import Foundation
import Crypto
import Synchronization

/// The console's signed sessions: what its cookie holds, the CSRF token each session's changes must carry, and
/// the sessions signed out before they expired.
///
/// A session is `base64url(id ‖ expiry) "." base64url(HMAC-SHA256(key, …))`, with the key derived from the admin
/// credential. Every node that shares the credential accepts every node's sessions (a cluster behind a proxy needs
/// no shared session table), and changing the credential ends every session. A session signed out is refused by
/// the node that signed it out until it expires; other nodes of a cluster still accept it until then (the browser
/// no longer has it: the sign-out clears the cookie).
///
/// ```swift
/// let sessions = ConsoleSessions(adminCredential: "s3cret")
/// let session = sessions.open(now: Date())
/// sessions.check(session.cookie, now: Date())?.csrfToken == session.csrfToken  // true
/// ```
public final class ConsoleSessions: Sendable {
    /// One signed-in console session.
    public struct Session: Sendable, Equatable {
        /// The cookie's value.
        public let cookie: String
        /// What the session's changes carry in `X-Hearth-CSRF`.
        public let csrfToken: String
        /// When the session ends.
        public let expires: Date
    }

    /// How long a session lasts: 12 hours.
    public static let lifetime: TimeInterval = 12 * 3600
    /// The cookie's name.
    public static let cookieName = "hearth_console"
    /// The prefix of the credential a request signed in by cookie carries to the products (`hcs.<cookie>`).
    public static let credentialPrefix = "hcs."

    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// Session ids signed out, with when each would have expired.
    private let revoked = Mutex<[Data: Date]>([:])

    /// Sessions signed with a key derived from `adminCredential`.
    public init(adminCredential: String) {
        keyBytes = Array(SHA256.hash(data: Data(("hearth-console-session-v1\u{0}" + adminCredential).utf8)))
    }

    /// A new session that ends ``lifetime`` after `now`.
    public func open(now: Date) -> Session {
        var id = Data(count: 16)
        id.withUnsafeMutableBytes { raw in
            var generator = SystemRandomNumberGenerator()
            for i in 0..<raw.count { raw[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.lifetime).rounded(.down))
        var payload = id
        withUnsafeBytes(of: UInt64(expires.timeIntervalSince1970).bigEndian) { payload.append(contentsOf: $0) }
        let cookie = Self.base64URL(payload) + "." + Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: payload, using: key)))
        return Session(cookie: cookie, csrfToken: csrfToken(id), expires: expires)
    }

    /// The session `cookie` stands for, or nil when it is malformed, forged, expired or signed out.
    public func check(_ cookie: String, now: Date) -> Session? {
        guard cookie.utf8.count <= 128 else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Self.data(base64URL: parts[0]), payload.count == 24,
            let mac = Self.data(base64URL: parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key)
        else { return nil }
        let id = payload.prefix(16)
        let seconds = payload.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let expires = Date(timeIntervalSince1970: TimeInterval(seconds))
        guard expires > now else { return nil }
        if revoked.withLock({ $0[Data(id)] != nil }) { return nil }
        return Session(cookie: cookie, csrfToken: csrfToken(Data(id)), expires: expires)
    }

    /// Signs `cookie`'s session out on this node; forgets sessions that have expired anyway.
    public func revoke(_ cookie: String, now: Date) {
        guard let session = check(cookie, now: now), let payload = Self.data(base64URL: cookie.split(separator: ".")[0]) else { return }
        revoked.withLock { list in
            list = list.filter { $0.value > now }
            list[Data(payload.prefix(16))] = session.expires
        }
    }

    /// Whether `given` is `session`'s CSRF token (compared in constant time).
    public func csrfMatches(_ given: String?, _ session: Session) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8)
        let b = Array(session.csrfToken.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private func csrfToken(_ id: Data) -> String {
        Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data("csrf".utf8) + id, using: key)))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
