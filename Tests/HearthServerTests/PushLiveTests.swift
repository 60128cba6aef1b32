import AsyncHTTPClient
import Crypto
import Foundation
import HearthAuth
import HearthCore
import HearthFunctions
import HearthMessaging
@testable import HearthServer
import HearthStore
import HearthTesting
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// Push notifications through a running server: users register their devices over HTTP, functions send (at once
/// through the outbox, or with their writes in one transaction), the admin sends a test notification, a provider
/// outage is retried, and a device a provider refuses ends as a dead letter with the provider's reason.
@Suite("Push in a live server", .timeLimit(.minutes(2)))
struct PushLiveTests {
    typealias F = FunctionsLiveTests

    struct Setup: Sendable {
        let port: Int
        let apns: APNsDouble
        let devices: MemoryDeviceStore
    }

    /// An APNs token (64 hex characters) numbered `n`.
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    func withServer(_ functions: Functions, _ body: (Setup) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        let apns = try APNsDouble(teamID: "TEAM123456", keyID: "KEY1234567", key: key.publicKey, topics: ["com.example.stays"])
        try await apns.start()
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(tlsConfiguration: apns.authority.clientConfiguration, timeout: .init(connect: .seconds(1))))
        let credentials = try APNsCredentials(keyID: "KEY1234567", teamID: "TEAM123456", p8: key.pemRepresentation)
        let client = APNsClient(endpoint: .custom(apns.baseURL), bundleID: "com.example.stays", credentials: credentials, http: http)
        let devices = MemoryDeviceStore()
        let messaging = MessagingService(devices: devices, providers: PushProviders(apns: client), logger: Logger(label: "test.push"))
        let server = LiveServer(stores: MemoryStoreFactory(), auth: F.auth(), functions: functions, messaging: messaging)
        let port = try await server.start()
        do {
            try await body(Setup(port: port, apns: apns, devices: devices))
        } catch {
            await server.stop()
            try? await http.shutdown()
            await apns.stop()
            throw error
        }
        await server.stop()
        try await http.shutdown()
        await apns.stop()
    }

    /// Waits until the double has accepted `count` notifications (10 s at most) and returns them.
    static func received(_ apns: APNsDouble, count: Int) async throws -> [ReceivedPush] {
        let deadline = ContinuousClock.now + .seconds(10)
        while apns.received.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return apns.received
    }

    /// A new chat message notifies its recipient; a reservation notifies the host in the same transaction as its writes.
    static func functions() throws -> Functions {
        var functions = Functions()
        try functions.onValueCreated("/messages/{id}") { event, context in
            guard let to = event.after["to"]?.stringValue, let text = event.after["text"]?.stringValue else { return }
            try await context.messaging?.send(PushNotification(title: "New message", body: text, threadID: "chat"), to: .user(to))
        }
        try functions.callable("reserve") { (input: [String: String], _, context) -> Bool in
            guard let host = input["host"], let listing = input["listing"] else { return false }
            try await context.database.atomically { _, writes in
                writes["reservations/\(listing)"] = .string("reserved")
                try writes.send(PushNotification(title: "Reservation made", data: ["listing": listing]), to: .user(host))
            }
            return true
        }
        return functions
    }

    @Test func usersRegisterTheirOwnDevicesAndFunctionsNotifyThem() async throws {
        try await withServer(try Self.functions()) { s in
            let ada = try await F.signUp(s.port)
            let bob = try await F.signUp(s.port)
            let asAda = F.json + [("Authorization", "Bearer \(ada.token)")]
            let asBob = F.json + [("Authorization", "Bearer \(bob.token)")]
            var r = try await F.send(s.port, .POST, "/.hearth/messaging/devices", #"{"token":"\#(Self.token(1))","service":"APNS"}"#, headers: asAda)
            #expect(r.status == 200)
            r = try await F.send(s.port, .POST, "/.hearth/messaging/devices", #"{"token":"\#(Self.token(2))","service":"APNS"}"#, headers: asBob)
            #expect(r.status == 200)
            // Without a signed-in user, or with a token that is not APNs's, nothing is registered.
            r = try await F.send(s.port, .POST, "/.hearth/messaging/devices", #"{"token":"\#(Self.token(3))","service":"APNS"}"#, headers: F.json)
            #expect(r.status == 401)
            r = try await F.send(s.port, .POST, "/.hearth/messaging/devices", #"{"token":"xyz","service":"APNS"}"#, headers: asAda)
            #expect(r.status == 400)
            r = try await F.send(s.port, .POST, "/.hearth/messaging/devices", #"{"token":"\#(Self.token(3))","service":"WAP"}"#, headers: asAda)
            #expect(r.status == 400)
            // Each user sees only their own devices, and cannot remove or subscribe another's.
            r = try await F.send(s.port, .GET, "/.hearth/messaging/devices", headers: asAda)
            #expect(r.json?["devices"] == .array([MessagingController.json(try #require(try await s.devices.device(token: Self.token(1))))]))
            r = try await F.send(s.port, .DELETE, "/.hearth/messaging/devices/\(Self.token(2))", headers: asAda)
            #expect(r.status == 404)
            r = try await F.send(s.port, .PUT, "/.hearth/messaging/devices/\(Self.token(2))/topics/news", headers: asAda)
            #expect(r.status == 404)
            r = try await F.send(s.port, .PUT, "/.hearth/messaging/devices/\(Self.token(1))/topics/news", headers: asAda)
            #expect(r.status == 200)
            #expect(try await s.devices.device(token: Self.token(1))?.topics == ["news"])

            // A trigger sends through the outbox.
            r = try await F.send(s.port, .PUT, "/messages/m1.json", #"{"to":"\#(bob.uid)","text":"See you at 8"}"#, headers: F.owner)
            #expect(r.status == 200)
            var got = try await Self.received(s.apns, count: 1)
            #expect(got.map(\.token) == [Self.token(2)])
            #expect(got.first?.payload["aps"]?["alert"]?["body"] == .string("See you at 8"))
            // A callable queues its push with its writes.
            r = try await F.send(s.port, .POST, "/functions/reserve", #"{"data":{"host":"\#(ada.uid)","listing":"l7"}}"#, headers: F.json)
            #expect(r.json?["result"] == .bool(true))
            got = try await Self.received(s.apns, count: 2)
            #expect(got.last?.token == Self.token(1) && got.last?.payload["listing"] == .string("l7"))
            r = try await F.send(s.port, .GET, "/reservations/l7.json", headers: F.owner)
            #expect(r.body == #""reserved""#)

            // The admin's test notification answers what the provider said.
            s.apns.unregister(Self.token(1))
            r = try await F.send(
                s.port, .POST, "/.hearth/messaging/send", #"{"target":{"topic":"news"},"notification":{"title":"Hello"}}"#, headers: F.owner)
            #expect(r.status == 200)
            #expect(r.json?["devices"] == .int(1) && r.json?["removed"] == .array([.string(Self.token(1))]))
            #expect(try await s.devices.device(token: Self.token(1)) == nil)
            r = try await F.send(s.port, .POST, "/.hearth/messaging/send", #"{"target":{"topic":"news"},"notification":{"title":"x"}}"#, headers: asBob)
            #expect(r.status == 401)
            r = try await F.send(s.port, .POST, "/.hearth/messaging/send", #"{"target":{"topic":"news"},"notification":{"titel":"x"}}"#, headers: F.owner)
            #expect(r.status == 400 && r.body.contains("titel"))
            // Bob signs out: his device is gone.
            r = try await F.send(s.port, .DELETE, "/.hearth/messaging/devices/\(Self.token(2))", headers: asBob)
            #expect(r.status == 200)
            #expect(try await s.devices.devices(uid: bob.uid).isEmpty)
        }
    }

    @Test func aPushQueuedDuringAnOutageIsDeliveredWhenTheProviderIsBack() async throws {
        try await withServer(Functions()) { s in
            try await s.devices.register(DeviceRegistration(token: Self.token(6), uid: "u6", service: .apns, updated: 1))
            let port = Int(s.apns.baseURL.split(separator: ":").last!)!
            await s.apns.stop()
            let r = try await F.send(
                s.port, .POST, "/.hearth/messaging/send", #"{"target":{"user":"u6"},"notification":{"title":"Back"},"queue":true}"#, headers: F.owner)
            #expect(r.status == 202)
            // The first attempt fails (nothing listens) and is recorded as one to retry.
            var runs: [JSONValue] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while !runs.contains(where: { $0["outcome"] == .string("retry") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                if case .array(let items) = try await F.send(s.port, .GET, "/.hearth/functions", headers: F.owner).json?["runs"] { runs = items }
            }
            let failed = try #require(runs.first { $0["outcome"] == .string("retry") })
            #expect(failed["function"] == .string("$push"))
            #expect(failed["error"]?.stringValue?.contains("APNs could not be reached") == true)
            // Back on the same port: the retry, about 10 s later (the backoff of a push), delivers it.
            try await s.apns.start(port: port)
            let deadline2 = ContinuousClock.now + .seconds(30)
            while s.apns.received.isEmpty, ContinuousClock.now < deadline2 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(s.apns.received.map(\.token) == [Self.token(6)])
        }
    }

    @Test func aPushThatReachesSomeDevicesLeavesOnlyTheOthersBehind() async throws {
        try await withServer(Functions()) { s in
            for n in [7, 8] { try await s.devices.register(DeviceRegistration(token: Self.token(n), uid: "u7", service: .apns, updated: Int64(n))) }
            // Whichever device's request comes first is refused; the other is delivered.
            s.apns.script([ScriptedPushAnswer(status: 400, reason: "BadCollapseId")])
            let r = try await F.send(
                s.port, .POST, "/.hearth/messaging/send", #"{"target":{"user":"u7"},"notification":{"title":"Hi"},"queue":true}"#, headers: F.owner)
            #expect(r.status == 202)
            let dead = try await F.deadLetters(s.port, atLeast: 1)
            let delivered = try await Self.received(s.apns, count: 1).map(\.token)
            #expect(delivered.count == 1)
            // The dead letter holds only the refused device, with APNs's reason; the delivered one is not sent again.
            let left = dead.first?["payload"]?["tokens"]
            #expect(left == .array([.string(delivered == [Self.token(7)] ? Self.token(8) : Self.token(7))]))
            #expect(dead.first?["error"]?.stringValue == "BadCollapseId (1 device)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(s.apns.received.count == 1)
        }
    }

    /// Runs the built `hearth` with `arguments`; its exit code and standard output and error.
    static func hearth(_ arguments: [String]) async throws -> (code: Int32, output: String) {
        let process = Process()
        process.executableURL = try HearthProcess.binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = await Task.detached { pipe.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func hearthPushSendSendsATestNotification() async throws {
        try await withServer(Functions()) { s in
            try await s.devices.register(DeviceRegistration(token: Self.token(9), uid: "u9", service: .apns, updated: 1))
            s.apns.unregister(Self.token(10))
            try await s.devices.register(DeviceRegistration(token: Self.token(10), uid: "u9", service: .apns, updated: 2))
            let url = "http://127.0.0.1:\(s.port)"
            var run = try await Self.hearth([
                "push", "send", "--url", url, "--token", "owner", "--user", "u9", "--title", "Hello", "--body", "It works", "--field", "k=v=w",
            ])
            #expect(run.code == 0, "\(run.output)")
            #expect(run.output.contains("devices 2, delivered 1"), "\(run.output)")
            #expect(run.output.contains("removed (invalid token): \(Self.token(10))"), "\(run.output)")
            let got = try #require(s.apns.received.first)
            #expect(got.payload["aps"]?["alert"]?["body"] == .string("It works") && got.payload["k"] == .string("v=w"))
            // Bad input is refused before anything is sent.
            run = try await Self.hearth(["push", "send", "--url", url, "--token", "owner", "--user", "u9", "--topic", "x", "--title", "Hi"])
            #expect(run.code != 0 && run.output.contains("exactly one of"), "\(run.output)")
            run = try await Self.hearth(["push", "send", "--url", url, "--token", "owner", "--user", "u9"])
            #expect(run.code != 0 && run.output.contains("needs a title"), "\(run.output)")
            run = try await Self.hearth(["push", "send", "--url", url, "--token", "wrong", "--user", "u9", "--title", "Hi"])
            #expect(run.code != 0 && run.output.contains("401"), "\(run.output)")
            #expect(s.apns.received.count == 1)
        }
    }

    @Test func badPushSettingsStopTheStartWithAReason() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("push-settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".write(toFile: dir + "/bad.p8", atomically: true, encoding: .utf8)
        try #"{"type":"service_account","project_id":"p"}"#.write(toFile: dir + "/account.json", atomically: true, encoding: .utf8)
        let serve = ["serve", "--port", "0", "--data", dir + "/data"]
        let cases: [([String], String)] = [
            (["--apns-key", dir + "/bad.p8"], "APNs needs all of"),
            (["--apns-key", dir + "/bad.p8", "--apns-key-id", "K", "--apns-team-id", "T", "--apns-bundle-id", "b"], "not a P-256 private key"),
            (["--apns-key", dir + "/none.p8", "--apns-key-id", "K", "--apns-team-id", "T", "--apns-bundle-id", "b"], "cannot read the APNs key file"),
            (["--fcm-service-account", dir + "/account.json"], "has no \"client_email\""),
        ]
        for (flags, reason) in cases {
            let run = try await Self.hearth(serve + flags)
            #expect(run.code == 6 && run.output.contains(reason), "\(flags): \(run.code) \(run.output)")
        }
    }

    @Test func aRefusedPushBecomesADeadLetterWithTheProvidersReason() async throws {
        try await withServer(Functions()) { s in
            try await s.devices.register(DeviceRegistration(token: Self.token(5), uid: "u5", service: .apns, updated: 1))
            s.apns.script([ScriptedPushAnswer(status: 400, reason: "TopicDisallowed")])
            let r = try await F.send(
                s.port, .POST, "/.hearth/messaging/send", #"{"target":{"user":"u5"},"notification":{"title":"Hi"},"queue":true}"#, headers: F.owner)
            #expect(r.status == 202)
            let dead = try await F.deadLetters(s.port, atLeast: 1)
            #expect(dead.first?["function"] == .string("$push"))
            #expect(dead.first?["error"]?.stringValue?.contains("TopicDisallowed") == true)
        }
    }
}
