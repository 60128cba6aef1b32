import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthMessaging
import HearthStore
import HearthTesting
import Logging
import NIOCore
import Synchronization
import Testing
import _CryptoExtras

/// The messaging service over a device store and the provider doubles: registrations (their checks, the
/// per-user cap, ownership), sends to a user, a token and a topic, bad tokens removed, retryable and
/// rejected devices reported.
@Suite(.timeLimit(.minutes(2)))
struct MessagingServiceTests {
    struct Setup: Sendable {
        let service: MessagingService
        let store: MemoryDeviceStore
        let apns: APNsDouble
        let fcm: FCMDouble
    }

    /// An APNs token (64 hex characters) numbered `n`.
    static func apnsToken(_ n: Int) -> String { String(format: "%064x", n) }

    func withService(sandbox: Bool = false, _ body: (Setup) async throws -> Void) async throws {
        let apnsKey = P256.Signing.PrivateKey()
        let apns = try APNsDouble(teamID: "TEAM123456", keyID: "KEY1234567", key: apnsKey.publicKey, topics: ["com.example.gifts"])
        try await apns.start()
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let fcm = FCMDouble(projectID: "gifts", clientEmail: "push@gifts.iam.gserviceaccount.com", key: rsa.publicKey)
        try await fcm.start()
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: apns.authority.clientConfiguration, timeout: .init(connect: .seconds(1))))
        let account = try ServiceAccount(json: JSONValue.object([
            JSONMember("type", .string("service_account")), JSONMember("project_id", .string("gifts")),
            JSONMember("private_key", .string(rsa.pemRepresentation)), JSONMember("client_email", .string("push@gifts.iam.gserviceaccount.com")),
            JSONMember("token_uri", .string(fcm.tokenURI)),
        ]).jsonBytes)
        let credentials = try APNsCredentials(keyID: "KEY1234567", teamID: "TEAM123456", p8: apnsKey.pemRepresentation)
        let providers = PushProviders(
            apns: APNsClient(endpoint: .custom(apns.baseURL), bundleID: "com.example.gifts", credentials: credentials, http: http),
            apnsSandbox: sandbox ? APNsClient(endpoint: .custom(apns.baseURL), bundleID: "com.example.gifts", credentials: credentials, http: http) : nil,
            fcm: FCMClient(account: account, http: http, baseURL: fcm.baseURL))
        let store = MemoryDeviceStore()
        let ticks = Mutex<Int64>(1_000)
        let service = MessagingService(devices: store, providers: providers, logger: Logger(label: "test.push")) {
            ticks.withLock { $0 += 1; return $0 }
        }
        do {
            try await body(Setup(service: service, store: store, apns: apns, fcm: fcm))
        } catch {
            try? await http.shutdown()
            await apns.stop()
            await fcm.stop()
            throw error
        }
        try await http.shutdown()
        await apns.stop()
        await fcm.stop()
    }

    @Test func registrationsAreCheckedCappedAndOwned() async throws {
        try await withService { s in
            await #expect(throws: PushError.self) { try await s.service.register(uid: "ada", token: "not-hex", service: .apns) }
            await #expect(throws: PushError.self) { try await s.service.register(uid: "", token: Self.apnsToken(1), service: .apns) }
            for n in 0..<(MessagingService.devicesPerUser + 2) { try await s.service.register(uid: "ada", token: Self.apnsToken(n), service: .apns) }
            let mine = try await s.store.devices(uid: "ada")
            #expect(mine.count == MessagingService.devicesPerUser)
            // The two registered first are gone.
            #expect(!mine.contains { $0.token == Self.apnsToken(0) || $0.token == Self.apnsToken(1) })
            try await s.service.register(uid: "bob", token: "fcm:bob-phone", service: .fcm)
            #expect(try await s.service.unregister(uid: "ada", token: "fcm:bob-phone") == false)
            await #expect(throws: PushError.self) { try await s.service.setTopic("news", subscribed: true, uid: "ada", token: "fcm:bob-phone") }
            await #expect(throws: PushError.self) { try await s.service.setTopic("bad topic", subscribed: true, uid: "bob", token: "fcm:bob-phone") }
            try await s.service.setTopic("news", subscribed: true, uid: "bob", token: "fcm:bob-phone")
            #expect(try await s.store.device(token: "fcm:bob-phone")?.topics == ["news"])
            #expect(try await s.service.unregister(uid: "bob", token: "fcm:bob-phone"))
            #expect(try await s.store.device(token: "fcm:bob-phone") == nil)
        }
    }

    @Test func aUserGetsItOnEveryDeviceAndBadTokensAreRemoved() async throws {
        try await withService { s in
            try await s.service.register(uid: "ada", token: Self.apnsToken(1), service: .apns)
            try await s.service.register(uid: "ada", token: Self.apnsToken(2), service: .apns)
            try await s.service.register(uid: "ada", token: "fcm:ada-pixel", service: .fcm)
            try await s.service.register(uid: "ada", token: Self.apnsToken(3), service: .apns, sandbox: true)
            s.apns.unregister(Self.apnsToken(2))
            let note = PushNotification(title: "A friend joined", body: "Bob is on Gifts now", data: ["friend": "bob"])
            let report = try await s.service.send(note, to: .user("ada"))
            #expect(report.devices == 4 && report.delivered == 2)
            #expect(report.removed == [Self.apnsToken(2)])
            #expect(report.rejected.map(\.token) == [Self.apnsToken(3)])
            #expect(report.rejected.first?.reason.contains("sandbox") == true)
            #expect(s.apns.received.map(\.token) == [Self.apnsToken(1)])
            #expect(s.fcm.received.map(\.token) == ["fcm:ada-pixel"])
            #expect(try await s.store.device(token: Self.apnsToken(2)) == nil)
            // A token nobody registered is sent as it is (its form says which service).
            let direct = try await s.service.send(note, to: .device(Self.apnsToken(9)))
            #expect(direct.delivered == 1 && s.apns.received.last?.token == Self.apnsToken(9))
        }
    }

    @Test func aTopicReachesEverySubscriberPageByPage() async throws {
        try await withService(sandbox: true) { s in
            let count = 1_200
            for n in 0..<count {
                let token = n % 4 == 0 ? "fcm:device-\(n)" : Self.apnsToken(n)
                try await s.service.register(uid: "u\(n)", token: token, service: n % 4 == 0 ? .fcm : .apns, sandbox: n % 8 == 1)
                try await s.service.setTopic("berlin", subscribed: true, uid: "u\(n)", token: token)
            }
            s.apns.script([ScriptedPushAnswer(status: 429, reason: "TooManyRequests", retryAfter: 7)])
            let report = try await s.service.send(PushNotification(title: "A campaign starts near you"), to: .topic("berlin"))
            #expect(report.devices == count)
            #expect(report.delivered == count - 1)
            #expect(report.retryable.count == 1 && report.retryable.first?.retryAfter == 7)
            #expect(s.apns.received.count + s.fcm.received.count == count - 1)
            #expect(s.fcm.received.count == count / 4)
            // Nobody subscribed: nothing sent.
            let empty = try await s.service.send(PushNotification(title: "x"), to: .topic("hamburg"))
            #expect(empty == PushReport())
        }
    }
}
