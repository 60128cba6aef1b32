import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthMessaging
import HearthTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import _CryptoExtras

/// The APNs and FCM clients against loopback doubles of the providers: APNs over HTTP/2 and TLS from a test
/// authority, FCM with Google's token exchange. Provider token reuse and refresh, bad-token answers,
/// rate limits, a provider outage and a revoked access token.
@Suite(.timeLimit(.minutes(1)))
struct ProviderClientTests {
    /// A settable clock (seconds since 1970).
    final class Clock: Sendable {
        let now: Mutex<Int64>
        init(_ start: Int64) { now = Mutex(start) }
        func advance(_ seconds: Int64) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Int64 { { self.now.withLock { $0 } } }
    }

    struct APNsSetup: Sendable {
        let double: APNsDouble
        let http: HTTPClient
        let client: APNsClient
        let clock: Clock
    }

    func withAPNs(_ body: (APNsSetup) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        let double = try APNsDouble(teamID: "TEAM123456", keyID: "KEY1234567", key: key.publicKey, topics: ["com.example.stays", "com.example.stays.voip"])
        try await double.start()
        // A refused connection is retried by the pool until the connect timeout: 1 s keeps the outage test short.
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: double.authority.clientConfiguration, timeout: .init(connect: .seconds(1))))
        let clock = Clock(Int64(Date().timeIntervalSince1970))
        let credentials = try APNsCredentials(keyID: "KEY1234567", teamID: "TEAM123456", p8: key.pemRepresentation)
        let client = APNsClient(endpoint: .custom(double.baseURL), bundleID: "com.example.stays", credentials: credentials, http: http, clock: clock.read)
        do {
            try await body(APNsSetup(double: double, http: http, client: client, clock: clock))
        } catch {
            try? await http.shutdown()
            await double.stop()
            throw error
        }
        try await http.shutdown()
        await double.stop()
    }

    @Test func apnsTakesNotificationsOverHTTP2WithOneReusedProviderToken() async throws {
        try await withAPNs { s in
            // The client and the double agree on HTTP/2 (APNs speaks nothing else).
            let probe = try await s.http.execute(HTTPClientRequest(url: s.double.baseURL + "/3/device/x"), timeout: .seconds(10))
            #expect(probe.version == .http2)
            var note = PushNotification(title: "New message", body: "Ada: see you at 8", data: ["chat": "c1"], threadID: "c1")
            note.apns.collapseID = "c1"
            let sent = note
            let outcomes = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
                for i in 0..<20 { group.addTask { try await s.client.send(sent, to: String(format: "%064x", i)) } }
                return try await group.reduce(into: [PushOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { if case .delivered(let id?) = $0 { !id.isEmpty } else { false } })
            #expect(s.double.received.count == 20)
            #expect(s.double.providerTokens.count == 1)
            let first = try #require(s.double.received.first)
            #expect(first.headers["apns-topic"] == "com.example.stays" && first.headers["apns-push-type"] == "alert")
            #expect(first.headers["apns-priority"] == "10" && first.headers["apns-collapse-id"] == "c1")
            #expect(first.payload["aps"]?["alert"]?["body"] == .string("Ada: see you at 8") && first.payload["chat"] == .string("c1"))
            // 49 minutes later the same token; 51 minutes later a new one.
            s.clock.advance(49 * 60)
            _ = try await s.client.send(note, to: "aa")
            #expect(s.double.providerTokens.count == 1)
            s.clock.advance(2 * 60)
            _ = try await s.client.send(note, to: "aa")
            #expect(s.double.providerTokens.count == 2)
            // A VoIP push goes to the app's .voip topic.
            var call = PushNotification(data: ["call": "1"])
            call.apns.pushType = .voip
            guard case .delivered = try await s.client.send(call, to: "bb") else {
                Issue.record("the VoIP push was not delivered")
                return
            }
            #expect(s.double.received.last?.headers["apns-topic"] == "com.example.stays.voip")
        }
    }

    @Test func anExpiredProviderTokenIsReplacedAndTheSendSucceeds() async throws {
        try await withAPNs { s in
            let note = PushNotification(title: "Hi")
            _ = try await s.client.send(note, to: "aa")
            // The double's clock runs an hour and a half ahead: it refuses the token as expired, once.
            s.double.setNow(s.clock.read() + 5400)
            s.clock.advance(5400 - 3000)
            let outcome = try await s.client.send(note, to: "aa")
            guard case .delivered = outcome else {
                Issue.record("expected delivered, got \(outcome)")
                return
            }
            #expect(s.double.providerTokens.count == 2)
        }
    }

    @Test func badTokensRateLimitsAndAnOutage() async throws {
        try await withAPNs { s in
            let note = PushNotification(title: "Hi")
            s.double.unregister("gone")
            s.double.markBad("junk")
            #expect(try await s.client.send(note, to: "gone") == .tokenInvalid(reason: "Unregistered"))
            #expect(try await s.client.send(note, to: "junk") == .tokenInvalid(reason: "BadDeviceToken"))
            s.double.script([ScriptedPushAnswer(status: 429, reason: "TooManyRequests", retryAfter: 5)])
            #expect(try await s.client.send(note, to: "aa") == .retry(reason: "TooManyRequests", after: 5))
            s.double.script([ScriptedPushAnswer(status: 503, reason: "ServiceUnavailable")])
            #expect(try await s.client.send(note, to: "aa") == .retry(reason: "ServiceUnavailable", after: nil))
            // Down: the send is to be retried; back on the same port: delivered.
            let port = Int(s.double.baseURL.split(separator: ":").last!)!
            await s.double.stop()
            let down = try await s.client.send(note, to: "aa")
            guard case .retry(let reason, nil) = down, reason.hasPrefix("APNs could not be reached") else {
                Issue.record("expected a retry, got \(down)")
                return
            }
            try await s.double.start(port: port)
            guard case .delivered = try await s.client.send(note, to: "aa") else {
                Issue.record("not delivered after the outage")
                return
            }
            // A notification APNs would refuse is never sent.
            await #expect(throws: PushError.self) { try await s.client.send(PushNotification(), to: "aa") }
        }
    }

    struct FCMSetup: Sendable {
        let double: FCMDouble
        let client: FCMClient
    }

    func withFCM(signingWith other: _RSA.Signing.PrivateKey? = nil, _ body: (FCMSetup) async throws -> Void) async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let double = FCMDouble(projectID: "stays-prod", clientEmail: "push@stays-prod.iam.gserviceaccount.com", key: key.publicKey)
        try await double.start()
        let json = JSONValue.object([
            JSONMember("type", .string("service_account")), JSONMember("project_id", .string("stays-prod")),
            JSONMember("private_key", .string((other ?? key).pemRepresentation)),
            JSONMember("client_email", .string("push@stays-prod.iam.gserviceaccount.com")), JSONMember("token_uri", .string(double.tokenURI)),
        ])
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let client = FCMClient(account: try ServiceAccount(json: json.jsonBytes), http: http, baseURL: double.baseURL)
        do {
            try await body(FCMSetup(double: double, client: client))
        } catch {
            try? await http.shutdown()
            await double.stop()
            throw error
        }
        try await http.shutdown()
        await double.stop()
    }

    @Test func fcmSendsShareOneAccessTokenAndFetchANewOneWhenItIsRevoked() async throws {
        try await withFCM { s in
            let note = PushNotification(title: "Reservation made", body: "3 nights from Friday", data: ["reservation": "r1"])
            let outcomes = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
                for i in 0..<10 { group.addTask { try await s.client.send(note, to: .token("fcm-\(i)")) } }
                return try await group.reduce(into: [PushOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { if case .delivered(let name?) = $0 { name.hasPrefix("projects/stays-prod/messages/") } else { false } })
            #expect(s.double.issuedTokens.count == 1)
            let message = try #require(s.double.received.first?.payload)
            #expect(message["notification"]?["title"] == .string("Reservation made") && message["data"]?["reservation"] == .string("r1"))
            s.double.revokeAccessTokens()
            guard case .delivered = try await s.client.send(note, to: .topic("hosts")) else {
                Issue.record("not delivered with a new access token")
                return
            }
            #expect(s.double.issuedTokens.count == 2)
            #expect(s.double.received.last?.token == "/topics/hosts")
        }
    }

    @Test func fcmBadTokensAndRateLimits() async throws {
        try await withFCM { s in
            let note = PushNotification(title: "Hi")
            s.double.unregister("old")
            s.double.markInvalid("junk")
            #expect(try await s.client.send(note, to: .token("old")) == .tokenInvalid(reason: "UNREGISTERED: Requested entity was not found."))
            #expect(try await s.client.send(note, to: .token("junk")) == .tokenInvalid(reason: "INVALID_ARGUMENT: The registration token is not a valid FCM registration token"))
            s.double.script([ScriptedPushAnswer(status: 429, reason: "QUOTA_EXCEEDED", retryAfter: 30)])
            let limited = try await s.client.send(note, to: .token("ok"))
            #expect(limited == .retry(reason: "QUOTA_EXCEEDED: error", after: 30))
        }
    }

    @Test func aServiceAccountTheTokenEndpointRefusesIsRejectedNotRetried() async throws {
        try await withFCM(signingWith: try _RSA.Signing.PrivateKey(keySize: .bits2048)) { s in
            let outcome = try await s.client.send(PushNotification(title: "Hi"), to: .token("t"))
            guard case .rejected(let reason) = outcome else {
                Issue.record("expected rejected, got \(outcome)")
                return
            }
            #expect(reason.contains("invalid_grant"))
            #expect(s.double.sends == 0)
        }
    }
}
