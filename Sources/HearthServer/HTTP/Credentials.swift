import Hummingbird

extension Request {
    /// The token of the `Authorization` header when its scheme is one of `schemes` (lower case,
    /// compared case-insensitively): `Bearer <token>` by default.
    func authorizationToken(schemes: Set<String> = ["bearer"]) -> String? {
        headers.authorizationToken(schemes: schemes)
    }
}

extension HTTPFields {
    /// See `Request.authorizationToken(schemes:)`.
    func authorizationToken(schemes: Set<String> = ["bearer"]) -> String? {
        guard let header = self[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, schemes.contains(parts[0].lowercased()) else { return nil }
        return String(parts[1])
    }
}

extension ServerConfiguration {
    /// Whether `token` is the admin credential (constant-time).
    func isAdminToken(_ token: String?) -> Bool {
        guard let token else { return false }
        if constantTimeEquals(token, adminToken) { return true }
        // `--dev` answers admin SDKs as Firebase's emulators do: `owner` in any case, and a Google OAuth access token
        // (`ya29.…`, what SDKs holding real credentials send) are admin. Never outside `--dev`.
        return dev && (token.lowercased() == "owner" || token.hasPrefix("ya29."))
    }
}
