import Crypto
import Foundation
import HearthWire
import _CryptoExtras
public import HearthCore

/// Where an identity provider's public keys come from: its JSON Web Key Set, fetched over HTTPS by
/// the server (HearthServer has the HTTP client), and a fixed set in tests.
public protocol ProviderKeySource: Sendable {
    /// The key set (`{"keys": [{kty, kid, n, e, …}]}`) at `url`. `fresh` asks past any cache: a
    /// token named a key the cached set does not have (the provider rotated its keys).
    func keySet(at url: String, fresh: Bool) async throws -> JSONValue
}

/// Sign-in with an identity provider's ID token (`accounts:signInWithIdp`): Sign in with Apple and
/// Google Sign-In give the app an OpenID Connect ID token, which the app sends here.
///
/// A token is accepted only from a provider this server has client IDs for, signed (RS256) by one of
/// the provider's published keys, from the provider's issuer, for one of those client IDs, and not
/// expired. `--dev` reads tokens without those checks, as Firebase's emulator does, so tests can
/// make their own.
public struct IdentityProviders: Sendable {
    /// One provider this server accepts ID tokens from, and how its tokens are checked.
    public struct Provider: Sendable {
        /// `apple.com`, `google.com`.
        public var id: String
        /// Accepted `iss` values.
        public var issuers: Set<String>
        /// The key set's URL.
        public var keysURL: String
        /// Accepted `aud` values: the app's client IDs (Apple: the bundle ID or services ID; Google: the
        /// OAuth client IDs).
        public var audiences: Set<String>

        /// A provider other than the two below: any OpenID Connect issuer that publishes RS256 keys.
        public init(id: String, issuers: Set<String>, keysURL: String, audiences: Set<String>) {
            self.id = id
            self.issuers = issuers
            self.keysURL = keysURL
            self.audiences = audiences
        }

        /// Sign in with Apple, for tokens whose `aud` is one of `clientIDs` (bundle IDs or services IDs).
        public static func apple(clientIDs: Set<String>) -> Provider {
            Provider(id: "apple.com", issuers: ["https://appleid.apple.com"], keysURL: "https://appleid.apple.com/auth/keys", audiences: clientIDs)
        }

        /// Google Sign-In, for tokens whose `aud` is one of `clientIDs` (OAuth client IDs).
        public static func google(clientIDs: Set<String>) -> Provider {
            Provider(
                id: "google.com", issuers: ["https://accounts.google.com", "accounts.google.com"],
                keysURL: "https://www.googleapis.com/oauth2/v3/certs", audiences: clientIDs)
        }
    }

    /// Providers by id. A provider not listed is refused with `OPERATION_NOT_ALLOWED` (unless `trustsUnverifiedTokens`).
    public var providers: [String: Provider]
    /// Fetches the providers' keys.
    public var keys: (any ProviderKeySource)?
    /// Read tokens without checking them, from any provider id (Firebase's emulator; `--dev` only).
    public var trustsUnverifiedTokens: Bool

    /// The providers accepted (a later one with the same id replaces an earlier one), where their keys come from, and
    /// whether tokens are read unchecked (`--dev` only).
    public init(providers: [Provider] = [], keys: (any ProviderKeySource)? = nil, trustsUnverifiedTokens: Bool = false) {
        self.providers = Dictionary(providers.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.keys = keys
        self.trustsUnverifiedTokens = trustsUnverifiedTokens
    }

    /// What the emulator does: any provider, tokens read unchecked.
    public static let emulator = IdentityProviders(trustsUnverifiedTokens: true)

    /// Clock skew tolerated on `exp` and `iat`, in seconds.
    static let leeway: Int64 = 60

    /// The claims of a provider's ID token that passed every check.
    func verifiedClaims(of token: String, provider providerID: String, nowSeconds: Int64) async throws -> JSONValue {
        if trustsUnverifiedTokens { return try Self.unverifiedClaims(token) }
        guard let provider = providers[providerID] else {
            throw AuthError("OPERATION_NOT_ALLOWED", "The identity provider \(providerID) is not enabled on this server.")
        }
        guard let keys else { throw AuthError("OPERATION_NOT_ALLOWED", "No source of \(providerID)'s keys is configured.") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONValue.parse(headerBytes),
            let payloadBytes = Base64URL.decode(parts[1]), let claims = try? JSONValue.parse(payloadBytes),
            let signature = Base64URL.decode(parts[2])
        else { throw Self.invalid("The ID token is not a JWT.") }
        guard header["alg"]?.stringValue == "RS256", let kid = header["kid"]?.stringValue else {
            throw Self.invalid("The ID token is not signed with RS256 by a named key.")
        }
        var key = try Self.publicKey(kid, in: await keySet(keys, provider, fresh: false))
        if key == nil { key = try Self.publicKey(kid, in: await keySet(keys, provider, fresh: true)) }
        guard let key else { throw Self.invalid("The ID token's key \(kid) is not one of \(providerID)'s keys.") }
        let signed = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
        else { throw Self.invalid("The ID token's signature does not verify.") }
        guard let issuer = claims["iss"]?.stringValue, provider.issuers.contains(issuer) else {
            throw Self.invalid("The ID token was not issued by \(providerID).")
        }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let one)?: [one]
            case .array(let many)?: many.compactMap(\.stringValue)
            default: []
            }
        guard audiences.contains(where: provider.audiences.contains) else {
            throw Self.invalid("The ID token is for another app (aud \(audiences.joined(separator: ", "))).")
        }
        guard let exp = Self.seconds(claims["exp"]), exp > nowSeconds - Self.leeway else { throw Self.invalid("The ID token has expired.") }
        if let iat = Self.seconds(claims["iat"]), iat > nowSeconds + Self.leeway { throw Self.invalid("The ID token is issued in the future.") }
        return claims
    }

    private func keySet(_ source: any ProviderKeySource, _ provider: Provider, fresh: Bool) async throws -> JSONValue {
        do {
            return try await source.keySet(at: provider.keysURL, fresh: fresh)
        } catch {
            // The cause stays on the server: it names hosts and addresses a client has no use for.
            throw AuthError("INVALID_IDP_RESPONSE", "\(provider.id)'s keys could not be fetched; try again later.")
        }
    }

    /// The emulator's reading: a JWT's payload, signed or not, or the payload itself as JSON text.
    static func unverifiedClaims(_ token: String) throws -> JSONValue {
        if token.hasPrefix("{") {
            guard let claims = try? JSONValue.parse(Array(token.utf8)) else { throw invalid("The ID token is not JSON.") }
            return claims
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, let bytes = Base64URL.decode(parts[1]), let claims = try? JSONValue.parse(bytes) else {
            throw invalid("The ID token is not a JWT.")
        }
        return claims
    }

    static func publicKey(_ kid: String, in set: JSONValue) throws -> _RSA.Signing.PublicKey? {
        guard case .array(let keys)? = set["keys"],
            let jwk = keys.first(where: { $0["kid"]?.stringValue == kid && $0["kty"]?.stringValue == "RSA" }),
            let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode), let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode)
        else { return nil }
        return try? _RSA.Signing.PublicKey(n: n, e: e)
    }

    static func seconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let i)?: i
        case .double(let d)?: d.isFinite && abs(d) < 9e18 ? Int64(d) : nil
        default: nil
        }
    }

    static func invalid(_ detail: String) -> AuthError { AuthError("INVALID_IDP_RESPONSE", detail) }
}
