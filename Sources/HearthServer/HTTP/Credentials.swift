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
