import Foundation
import HTTPTypes
import HearthAuth
import Synchronization
import HearthCore
import HearthRules
import HearthStore

/// Who a request acts as, for the rules.
enum Access: Sendable {
    /// The admin credential without an override: rules are bypassed.
    case admin
    /// Rules apply with this `auth` (nil = signed out).
    case user(JSONValue?)

    var auth: JSONValue? {
        if case .user(let a) = self { return a }
        return nil
    }
}

extension DatabaseController {
    /// Resolves the request's credential into rules access.
    func access(_ identity: Identity, override: JSONValue?) throws -> Access {
        switch identity {
        case .admin:
            guard let override else { return .admin }
            return .user(override == .null ? nil : override)
        case .anonymous:
            return .user(nil)
        case .token(let token):
            do {
                return .user(try authenticator.user(token))
            } catch .expired {
                // As on the realtime socket, which refuses it with `expired_token`.
                throw RestError(.unauthorized, "Auth token is expired")
            } catch {
                throw RestError(.unauthorized, "Could not parse auth token.")
            }
        }
    }
}

/// Turns ID-token claims into the rules' `auth` variable.
enum IDTokenClaims {
    /// `{uid, provider, token}` from a JWT's payload, without checking its signature; nil when the
    /// token is not a JWT with a JSON object payload naming a user.
    static func authVariable(fromUnverified token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 2, let payload = Base64URL.decode(parts[1]),
            let claims = try? JSONValue.parse(payload), case .object = claims
        else { return nil }
        return authVariable(claims: claims)
    }

    static func authVariable(claims: JSONValue) -> JSONValue? {
        guard let uid = claims["sub"]?.stringValue ?? claims["user_id"]?.stringValue, !uid.isEmpty else { return nil }
        let provider = claims["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        return .object([
            JSONMember("uid", .string(uid)),
            JSONMember("provider", .string(provider)),
            JSONMember("token", claims),
        ])
    }

}

/// The store, as the rules see it.
struct StoreRuleData: RuleDataSource {
    let reader: any StoreReader

    func summary(at path: Path) throws -> NodeSummary { try reader.summary(path) }

    func childKeys(at path: Path, limit: Int) throws -> [Key] {
        try reader.shallow(path, Query(order: .key, limit: .first(limit))).children.map(\.0)
    }
}

/// Checks writes against a namespace's rules inside the writer's transaction.
struct RulesAuthorizer: WriteAuthorizer {
    let rules: RuleSet
    let auth: JSONValue?

    func denial(for writes: [(path: Path, node: Node)], data: any StoreReader, now: Int64) -> String? {
        let decision = rules.canWrite(writes, auth: auth, now: now, data: StoreRuleData(reader: data))
        return decision.allowed ? nil : decision.reason
    }

    func readDenial(at path: Path, data: any StoreReader, now: Int64) -> String? {
        let decision = rules.canRead(path, auth: auth, now: now, data: StoreRuleData(reader: data))
        return decision.allowed ? nil : decision.reason
    }
}

extension RestCall {
    /// The read check to run inside the read's snapshot (nil for admin).
    func readCheck(query: Query?) -> (@Sendable (any StoreReader) throws -> Void)? {
        guard case .user(let auth) = access else { return nil }
        let rules = namespace.rules.ruleSet
        let path = self.path
        return { reader in
            let decision = rules.canRead(path, auth: auth, query: query, now: wallClockMillis(), data: StoreRuleData(reader: reader))
            if !decision.allowed { throw RestError.permissionDenied(decision.reason) }
        }
    }
}

/// Milliseconds since 1970 for rules' `now` on reads.
func wallClockMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
