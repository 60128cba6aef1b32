import HearthAuth
import HearthCore

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
