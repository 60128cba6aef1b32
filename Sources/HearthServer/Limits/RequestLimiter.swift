import Synchronization
import Foundation
import HTTPTypes
import HearthConsole
import HearthCore

/// Decides whether a request may go on under the rate limits: the admin's credentials pass; every other request
/// takes a token from its client address's bucket and, when it carries a valid ID token, from its user's.
///
/// The user is found through the ``Authenticator``'s cache of checked tokens, so the route that answers the
/// request finds the token checked already: no token is verified twice.
struct RequestLimiter: Sendable {
    /// The limits and their shared buckets.
    let limits: RequestLimits
    /// Whose credentials are whose.
    let authenticator: Authenticator
    /// Whose `X-Forwarded-For` names the client.
    let trustedProxies: TrustedProxies

    /// A limiter for these limits, or nil when no request rate is limited.
    init?(limits: RequestLimits, authenticator: Authenticator, trustedProxies: TrustedProxies) {
        guard limits.limitsRequests else { return nil }
        self.limits = limits
        self.authenticator = authenticator
        self.trustedProxies = trustedProxies
    }

    /// The limiter `database`'s configuration asks for, or nil when no request rate is limited.
    init?(_ database: DatabaseController) {
        let configuration = database.configuration
        self.init(limits: configuration.limits, authenticator: database.authenticator, trustedProxies: configuration.trustedProxies)
    }

    /// A request over a limit: which one and how long to wait.
    struct Refusal: Sendable, Equatable {
        /// Which bucket was empty.
        enum Scope: String, Sendable {
            /// The client address's.
            case ip
            /// The signed-in user's.
            case user
        }

        /// Which bucket was empty.
        var scope: Scope
        /// Whole seconds until the bucket holds a token again (at least 1).
        var retryAfter: Int
    }

    /// The schemes of `Authorization` that carry a credential (`Firebase` is what the storage SDKs send).
    private static let schemes: Set<String> = ["bearer", "firebase"]

    /// Whether the HTTP request with these header fields, target and socket peer may go on (nil) or is refused.
    func check(_ fields: HTTPFields, target: String?, peer: String?) -> Refusal? {
        let token = fields.authorizationToken(schemes: Self.schemes) ?? Self.queryCredential(target)
        if let token, authenticator.isAdmin(token) { return nil }
        if token == nil, fields[.authorization] == nil, isConsoleSession(fields) { return nil }
        let address = limits.ip.isLimited ? trustedProxies.clientAddress(peer: peer, forwardedFor: fields[values: AuthController.forwardedFor]) : nil
        return check(address: address, uid: limits.user.isLimited ? token.flatMap(uid(of:)) : nil)
    }

    /// Takes a token from `address`'s bucket and then from `uid`'s (either may be nil: not counted); the refusal of
    /// the first that was empty.
    func check(address: String?, uid: String?) -> Refusal? {
        let state = limits.state
        if let address, let wait = state.addresses.take(address, limit: limits.ip) {
            state.limitedByAddress.wrappingAdd(1, ordering: .relaxed)
            return Refusal(scope: .ip, retryAfter: wait)
        }
        if let uid, let wait = state.users.take(uid, limit: limits.user) {
            state.limitedByUser.wrappingAdd(1, ordering: .relaxed)
            return Refusal(scope: .user, retryAfter: wait)
        }
        return nil
    }

    /// The uid of a valid ID token (from the authenticator's cache after its first check), or nil.
    func uid(of token: String) -> String? {
        guard case .user(let auth)? = try? authenticator.caller(token) else { return nil }
        return auth["uid"]?.stringValue
    }

    /// Whether the console's cookie holds a live session (the console counts as the admin).
    private func isConsoleSession(_ fields: HTTPFields) -> Bool {
        guard ConsoleController.mayCarrySession(fields), let sessions = authenticator.sessions, let cookie = ConsoleController.cookie(fields) else {
            return false
        }
        return sessions.check(cookie, now: Date()) != nil
    }

    /// The database REST API's credential in the query (`auth=` or `access_token=`), if any.
    static func queryCredential(_ target: String?) -> String? {
        guard let target, let question = target.firstIndex(of: "?") else { return nil }
        let query = target[target.index(after: question)...]
        guard query.contains("auth=") || query.contains("access_token=") else { return nil }
        let parameters = parseQueryString(String(query))
        return parameters["auth"] ?? parameters["access_token"]
    }
}
