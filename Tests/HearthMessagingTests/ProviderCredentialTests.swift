import Crypto
import Foundation
import HearthAuth
import HearthCore
import HearthMessaging
import Synchronization
import Testing
import _CryptoExtras

/// The providers' credentials: APNs's ES256 provider token (checked with the key's public half, reused for
/// 50 minutes, replaced once when refused) and FCM's service-account assertion and access-token cache.
@Suite struct ProviderCredentialTests {
    /// The header and claims of a compact JWS, and whether `verify` accepts its signature over `header.claims`.
    func parts(_ token: String) throws -> (header: JSONValue, claims: JSONValue, input: [UInt8], signature: [UInt8]) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        return (
            try JSONValue.parse(try #require(Base64URL.decode(pieces[0]))), try JSONValue.parse(try #require(Base64URL.decode(pieces[1]))),
            Array("\(pieces[0]).\(pieces[1])".utf8), try #require(Base64URL.decode(pieces[2]))
        )
    }

    @Test func apnsTokensAreES256SignedByTheKeyAndReusedFor50Minutes() throws {
        let key = P256.Signing.PrivateKey()
        let credentials = try APNsCredentials(keyID: "ABC123DEFG", teamID: "TEAM123456", p8: key.pemRepresentation)
        let first = try credentials.token(now: 1_000_000)
        let (header, claims, input, signature) = try parts(first)
        #expect(header == .object([JSONMember("alg", .string("ES256")), JSONMember("kid", .string("ABC123DEFG"))]))
        #expect(claims == .object([JSONMember("iss", .string("TEAM123456")), JSONMember("iat", .int(1_000_000))]))
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input))
        // Reused until 50 minutes have passed, then replaced.
        #expect(try credentials.token(now: 1_000_000 + 49 * 60) == first)
        let second = try credentials.token(now: 1_000_000 + 50 * 60)
        #expect(second != first)
        #expect(try parts(second).claims["iat"] == .int(1_000_000 + 50 * 60))
        // A refusal of the current token replaces it; a late refusal of an older one does not.
        credentials.refused(second)
        let third = try credentials.token(now: 1_000_000 + 51 * 60)
        #expect(third != second)
        credentials.refused(second)
        #expect(try credentials.token(now: 1_000_000 + 52 * 60) == third)
    }

    @Test func aKeyThatIsNotP256IsRefused() throws {
        #expect(throws: PushError.self) { try APNsCredentials(keyID: "K", teamID: "T", p8: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----") }
        #expect(throws: PushError.self) { try APNsCredentials(keyID: "", teamID: "T", p8: P256.Signing.PrivateKey().pemRepresentation) }
    }

    /// A service account file as the Firebase console writes it, for `key`.
    func serviceAccount(_ key: _RSA.Signing.PrivateKey, type: String = "service_account", dropping: String? = nil) -> [UInt8] {
        var fields: [JSONMember] = [
            JSONMember("type", .string(type)), JSONMember("project_id", .string("stays-prod")), JSONMember("private_key_id", .string("kid-1")),
            JSONMember("private_key", .string(key.pemRepresentation)), JSONMember("client_email", .string("push@stays-prod.iam.gserviceaccount.com")),
            JSONMember("token_uri", .string("https://oauth2.googleapis.com/token")),
        ]
        fields.removeAll { $0.key == dropping }
        return JSONValue.object(fields).jsonBytes
    }

    @Test func theServiceAccountAssertionIsWhatGooglesTokenEndpointExpects() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try ServiceAccount(json: serviceAccount(key))
        #expect(account.projectID == "stays-prod")
        let (header, claims, input, signature) = try parts(try account.assertion(now: 1_700_000_000))
        #expect(header["alg"] == .string("RS256") && header["kid"] == .string("kid-1"))
        #expect(claims["iss"] == .string("push@stays-prod.iam.gserviceaccount.com"))
        #expect(claims["scope"] == .string("https://www.googleapis.com/auth/firebase.messaging"))
        #expect(claims["aud"] == .string("https://oauth2.googleapis.com/token"))
        #expect(claims["iat"] == .int(1_700_000_000) && claims["exp"] == .int(1_700_003_600))
        #expect(key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5))
        let form = try account.tokenRequestBody(now: 1_700_000_000)
        #expect(form.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"))
        for missing in ["project_id", "client_email", "private_key"] {
            do {
                _ = try ServiceAccount(json: serviceAccount(key, dropping: missing))
                Issue.record("a file without \(missing) was taken")
            } catch {
                #expect("\(error)".contains(missing))
            }
        }
        #expect(throws: PushError.self) { try ServiceAccount(json: serviceAccount(key, type: "authorized_user")) }
        #expect(throws: PushError.self) { try ServiceAccount(json: Array("[]".utf8)) }
    }

    @Test func accessTokensAreSharedReusedAndReplacedWhenRefused() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try ServiceAccount(json: serviceAccount(key))
        let fetches = Mutex(0)
        let cache = FCMAccessToken(account: account) { _, _ in
            let n = fetches.withLock { $0 += 1; return $0 }
            try await Task.sleep(for: .milliseconds(50))
            return ("token-\(n)", 3600)
        }
        // Ten senders at once share one fetch.
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await cache.token(now: 1000) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens) == ["token-1"])
        #expect(fetches.withLock { $0 } == 1)
        // Reused until five minutes before it expires.
        #expect(try await cache.token(now: 1000 + 3600 - 301) == "token-1")
        #expect(try await cache.token(now: 1000 + 3600 - 300) == "token-2")
        await cache.refused("token-1")
        #expect(try await cache.token(now: 5000) == "token-2")
        await cache.refused("token-2")
        #expect(try await cache.token(now: 5000) == "token-3")
        #expect(fetches.withLock { $0 } == 3)
    }
}
