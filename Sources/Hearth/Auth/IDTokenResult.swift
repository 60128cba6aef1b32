import Foundation
public import HearthCore

/// An ID token and what it says (Firebase's `AuthTokenResult`).
///
/// The custom claims an admin gives a user (`hearth users set-claims`, firebase-admin's
/// `set_custom_user_claims`, a server function) sit at the top level of ``claims``, next to the
/// standard ones. Security rules see the same claims as `auth.token.<name>`, so an app can show
/// what the rules will allow, a "pro" badge say:
///
/// ```swift
/// let result = try await auth.idTokenResult(forceRefresh: true)  // after the claims changed
/// let isPro = try result?.claim("pro", as: Bool.self) ?? false
/// ```
///
/// New claims reach the client with the next token: within the hour, or at once with
/// `forceRefresh: true`.
public struct IDTokenResult: Sendable, Hashable {
    /// The token itself, as ``Auth/idToken(forceRefresh:)`` returns it.
    public let token: String
    /// Every claim of the token (`sub`, `email`, `firebase`, custom claims, …).
    public let claims: [String: JSONValue]
    /// When the token stops being accepted (`exp`).
    public let expirationDate: Date
    /// When the token was made (`iat`).
    public let issuedAtDate: Date
    /// When the user last signed in with a credential (`auth_time`); a refresh keeps it.
    public let authDate: Date
    /// How the user signed in: `password`, `anonymous`, `phone`, `custom`, `apple.com`, … (`firebase.sign_in_provider`).
    public let signInProvider: String

    /// Reads the payload of `token`; nil if it is not a JWT with the claims every ID token has.
    init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URLDecoded(parts[1]),
            case .object(let members)? = try? JSONValue.parse(payload)
        else { return nil }
        var claims: [String: JSONValue] = [:]
        for member in members { claims[member.key] = member.value }
        func date(_ name: String) -> Date? { claims[name]?.doubleValue.map(Date.init(timeIntervalSince1970:)) }
        guard let expiration = date("exp"), let issuedAt = date("iat") else { return nil }
        self.token = token
        self.claims = claims
        self.expirationDate = expiration
        self.issuedAtDate = issuedAt
        self.authDate = date("auth_time") ?? issuedAt
        self.signInProvider = claims["firebase"]?["sign_in_provider"]?.stringValue ?? ""
    }

    /// The claim `name` decoded as `T` (`Bool`, `String`, `Int`, `[String]`, a `Decodable` struct for an object
    /// claim), or nil if the token has no such claim.
    ///
    /// - Throws: `DecodingError` when the claim is there but is not a `T`.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        guard let value = claims[name] else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(value.jsonBytes))
    }

    private static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}

extension Auth {
    /// The current user's ID token with its claims, refreshed as ``idToken(forceRefresh:)`` would;
    /// nil when nobody is signed in. `forceRefresh: true` fetches a new token, which carries claims an
    /// admin changed since the last one.
    ///
    /// Throws what ``idToken(forceRefresh:)`` throws, and ``AuthError`` `.invalidResponse` if the
    /// server's token cannot be read.
    public func idTokenResult(forceRefresh: Bool = false) async throws -> IDTokenResult? {
        guard let token = try await idToken(forceRefresh: forceRefresh) else { return nil }
        guard let result = IDTokenResult(token: token) else {
            throw AuthError(code: .invalidResponse, message: "The server's ID token could not be read.")
        }
        return result
    }
}
