import Foundation
import HTTPTypes
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
            // ID tokens are verified by the auth product; until then only `--dev` accepts them,
            // unverified, as the Firebase emulator does.
            guard configuration.dev, let auth = tokens.authVariable(for: token) else {
                throw RestError(.unauthorized, "Could not parse auth token.")
            }
            return .user(auth)
        }
    }
}

/// Decoded tokens, so a client that sends the same token on every request is decoded once
/// (decoding was ~9 % of a rules-checked PUT). Bounded: emptied when full.
final class TokenCache: Sendable {
    private let entries = Mutex<[String: JSONValue]>([:])
    let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The `auth` variable for an unverified (`--dev`) token, or nil if it does not decode.
    func authVariable(for token: String) -> JSONValue? {
        if let hit = entries.withLock({ $0[token] }) { return hit }
        guard token.utf8.count <= 8192, let auth = IDTokenClaims.authVariable(fromUnverified: token) else { return nil }
        entries.withLock { e in
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[token] = auth
        }
        return auth
    }
}

/// Turns ID-token claims into the rules' `auth` variable.
enum IDTokenClaims {
    /// `{uid, provider, token}` from a JWT's payload, without checking its signature; nil when the
    /// token is not a JWT with a JSON object payload naming a user.
    static func authVariable(fromUnverified token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 2, let payload = base64URLDecode(parts[1]),
            case .object = try? JSONValue.parse(payload), let claims = try? JSONValue.parse(payload)
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

    /// Base64url without padding (padding tolerated), as JWTs use.
    static func base64URLDecode(_ s: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in s.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
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
