import HTTPTypes
import HearthAuth
import HearthCore
@testable import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `--trusted-proxies`: behind a reverse proxy the client is named by `X-Forwarded-For`, believed only from a listed
/// peer, so one user's failed sign-ins do not lock out everyone behind the same proxy.
@Suite("Trusted proxies")
struct TrustedProxiesTests {
    @Test func entriesAreAddressesOrRanges() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "192.168.1.1", "::1", "fd00::/8"])
        for inside in ["10.1.2.3", "192.168.1.1", "::1", "fd12::5", "::ffff:10.9.9.9"] { #expect(proxies.contains(inside), "\(inside)") }
        for outside in ["11.0.0.1", "192.168.1.2", "::2", "fe80::1", "not-an-address", ""] { #expect(!proxies.contains(outside), "\(outside)") }
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "example.com", "::1/129", "1.2.3.4/+8"] {
            #expect(throws: TrustedProxies.InvalidEntry.self, "\(bad)") { try TrustedProxies([bad]) }
        }
    }

    @Test func theClientIsTheRightMostUntrustedHop() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8"])
        // From a trusted peer: the right-most hop not listed; what the client wrote further left is ignored.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.1.1.1", "203.0.113.9, 10.0.0.5"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.0.0.7, 10.0.0.5"]) == "10.0.0.7")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
        // From anyone else the header is the client's own words.
        #expect(proxies.clientAddress(peer: "198.51.100.4", forwardedFor: ["203.0.113.9"]) == "198.51.100.4")
        #expect(TrustedProxies().clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9"]) == "10.0.0.2")
    }

    /// A live server on port 0 (the peer is 127.0.0.1) behind which clients are told apart by `X-Forwarded-For`.
    func withServer(trusting proxies: [String], _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let auth = AuthService(
            projectID: "demo", store: MemoryAccountStore(), keys: KeyRing(current: AuthRouterTests.key), hasher: PasswordHasher(rounds: 1 << 4),
            options: .production(authorizedDomains: [], emailPrivacy: false))
        let server = HearthServer(
            configuration: ServerConfiguration(port: 0, adminToken: "owner", trustedProxies: try TrustedProxies(proxies)),
            stores: MemoryStoreFactory(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), auth: auth)
        try await server.application().test(.live) { client in try await body(client) }
        await server.shutdown()
    }

    func signIn(_ client: any TestClientProtocol, password: String, from address: String) async throws -> String {
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Forwarded-For")!] = "6.6.6.6, " + address
        let (_, text, _) = try await client.send(
            .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", #"{"email":"p@x.io","password":"\#(password)"}"#,
            headers: headers)
        return try JSONValue.parse(text)["error"]?["message"]?.stringValue ?? "OK"
    }

    @Test("behind a trusted proxy, a guesser's lock is his own")
    func aLockBehindAProxyIsPerClient() async throws {
        try await withServer(trusting: ["127.0.0.1", "::1"]) { client in
            _ = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", #"{"email":"p@x.io","password":"owner-pass"}"#, headers: [:])
            for i in 0..<10 { #expect(try await signIn(client, password: "guess\(i)", from: "198.51.100.66") == "INVALID_PASSWORD") }
            #expect(try await signIn(client, password: "owner-pass", from: "198.51.100.66") == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await signIn(client, password: "owner-pass", from: "203.0.113.7") == "OK")
        }
        // An untrusted peer's header is ignored: everyone from it is one client.
        try await withServer(trusting: []) { client in
            _ = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", #"{"email":"p@x.io","password":"owner-pass"}"#, headers: [:])
            for i in 0..<10 { #expect(try await signIn(client, password: "guess\(i)", from: "198.51.100.66") == "INVALID_PASSWORD") }
            #expect(try await signIn(client, password: "owner-pass", from: "203.0.113.7") == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }
}
