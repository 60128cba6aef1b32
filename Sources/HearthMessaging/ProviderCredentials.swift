import Crypto
import Foundation
import HearthAuth
import HearthCore
import Synchronization
import _CryptoExtras

/// APNs token-based authentication: the `.p8` key of an Apple developer account, its key id and the
/// team id. Requests carry an ES256 JWT (`{"alg":"ES256","kid":…}` / `{"iss": team, "iat": now}`) that is
/// made once and reused for 50 minutes (APNs refuses one older than an hour, and one replaced more often
/// than every 20 minutes).
public final class APNsCredentials: Sendable {
    /// The key id (10 characters, from the developer account).
    public let keyID: String
    /// The team id (10 characters).
    public let teamID: String
    /// The key's raw scalar: swift-crypto's key type is not Sendable, and a key is only needed every 50 minutes.
    private let key: [UInt8]
    private let cache = Mutex<(token: String, issuedAt: Int64)?>(nil)
    /// Seconds a token is reused.
    public static let lifetime: Int64 = 50 * 60

    /// Credentials from the `.p8` file's PEM text; throws a ``PushError`` when it is not a P-256 private key.
    public init(keyID: String, teamID: String, p8: String) throws {
        guard !keyID.isEmpty, !teamID.isEmpty else { throw PushError("APNs needs a key id and a team id") }
        do {
            key = Array(try P256.Signing.PrivateKey(pemRepresentation: p8).rawRepresentation)
        } catch {
            throw PushError("The APNs key is not a P-256 private key in PEM (the .p8 file from Apple): \(error)")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The token to send at `now` (seconds since 1970): the cached one while it is younger than
    /// ``lifetime``, else a new one.
    public func token(now: Int64) throws -> String {
        try cache.withLock { cached in
            if let cached, now - cached.issuedAt < Self.lifetime, now >= cached.issuedAt { return cached.token }
            let token = try sign(now: now)
            cached = (token, now)
            return token
        }
    }

    /// APNs refused `token` (`ExpiredProviderToken`, `InvalidProviderToken`): the next ``token(now:)``
    /// makes a new one, unless another request already replaced it.
    public func refused(_ token: String) {
        cache.withLock { cached in
            if cached?.token == token { cached = nil }
        }
    }

    private func sign(now: Int64) throws -> String {
        let header = JSONValue.object([JSONMember("alg", .string("ES256")), JSONMember("kid", .string(keyID))])
        let claims = JSONValue.object([JSONMember("iss", .string(teamID)), JSONMember("iat", .int(now))])
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(claims.jsonBytes)
        // ES256 in a JWS is the raw r ‖ s (64 bytes), which is what rawRepresentation is.
        let signature = try P256.Signing.PrivateKey(rawRepresentation: key).signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}

/// A Google service account (the JSON file from the Firebase console) for FCM HTTP v1: it signs an
/// RS256 assertion that Google's token endpoint exchanges for an OAuth access token.
public struct ServiceAccount: Sendable {
    /// `project_id`: the FCM project messages are sent through.
    public let projectID: String
    /// `client_email`: the assertion's issuer.
    public let clientEmail: String
    /// `token_uri`: where the assertion is exchanged (`https://oauth2.googleapis.com/token`).
    public let tokenURI: String
    /// `private_key_id`, sent as the assertion's `kid`.
    public let privateKeyID: String?
    private let key: _RSA.Signing.PrivateKey
    /// The scope FCM sends need.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Reads the service account JSON; throws a ``PushError`` naming what is missing or wrong.
    public init(json: [UInt8]) throws {
        guard let value = try? JSONValue.parse(json), case .object = value else { throw PushError("The service account file is not a JSON object") }
        func field(_ name: String) throws -> String {
            guard let s = value[name]?.stringValue, !s.isEmpty else { throw PushError("The service account file has no \"\(name)\"") }
            return s
        }
        if let type = value["type"]?.stringValue, type != "service_account" {
            throw PushError("The file is a \"\(type)\" credential; FCM needs a service account")
        }
        projectID = try field("project_id")
        clientEmail = try field("client_email")
        tokenURI = value["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
        privateKeyID = value["private_key_id"]?.stringValue
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: try field("private_key"))
        } catch let error as PushError {
            throw error
        } catch {
            throw PushError("The service account's private_key is not an RSA key in PEM: \(error)")
        }
    }

    /// The signed assertion for `now` (seconds since 1970), valid for an hour.
    public func assertion(now: Int64) throws -> String {
        var header = [JSONMember("alg", .string("RS256")), JSONMember("typ", .string("JWT"))]
        if let privateKeyID { header.append(JSONMember("kid", .string(privateKeyID))) }
        let claims = JSONValue.object([
            JSONMember("iss", .string(clientEmail)), JSONMember("scope", .string(Self.scope)), JSONMember("aud", .string(tokenURI)),
            JSONMember("iat", .int(now)), JSONMember("exp", .int(now + 3600)),
        ])
        let input = Base64URL.encode(JSONValue.object(header).jsonBytes) + "." + Base64URL.encode(claims.jsonBytes)
        let signature = try key.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The form body of the token request: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`.
    public func tokenRequestBody(now: Int64) throws -> String {
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try assertion(now: now))
    }
}

/// The OAuth access token FCM sends carry, fetched with a ``ServiceAccount`` and reused until five
/// minutes before it expires. Concurrent senders share one fetch.
public actor FCMAccessToken {
    /// Exchanges an assertion for `(access token, seconds it lives)`; the transport's part.
    public typealias Fetch = @Sendable (_ account: ServiceAccount, _ now: Int64) async throws -> (token: String, expiresIn: Int64)

    private let account: ServiceAccount
    private let fetch: Fetch
    private var current: (token: String, expires: Int64)?
    private var pending: Task<(token: String, expiresIn: Int64), any Error>?

    /// A cache for `account`'s tokens, fetching with `fetch`.
    public init(account: ServiceAccount, fetch: @escaping Fetch) {
        self.account = account
        self.fetch = fetch
    }

    /// A token good for at least five more minutes at `now` (seconds since 1970).
    public func token(now: Int64) async throws -> String {
        if let current, now < current.expires - 300 { return current.token }
        let task: Task<(token: String, expiresIn: Int64), any Error>
        if let pending {
            task = pending
        } else {
            let (account, fetch) = (account, fetch)
            task = Task { try await fetch(account, now) }
            pending = task
        }
        defer { pending = nil }
        let fetched = try await task.value
        current = (fetched.token, now + fetched.expiresIn)
        return fetched.token
    }

    /// FCM refused `token` (401): the next ``token(now:)`` fetches a new one, unless it was replaced already.
    public func refused(_ token: String) {
        if current?.token == token { current = nil }
    }
}
