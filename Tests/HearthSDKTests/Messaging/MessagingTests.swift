import Foundation
import Hearth
import HearthMessaging
import HearthStore
import HearthTesting
import Logging
import Testing

/// `app.messaging`: the device's token registered for the signed-in user, topics, and the registration
/// following the session (gone at sign-out, moved at the next user's sign-in).
@Suite("SDK messaging", .timeLimit(.minutes(1)))
struct MessagingTests {
    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test func theDeviceIsRegisteredForWhoeverIsSignedIn() async throws {
        let devices = MemoryDeviceStore()
        // No provider is needed to register: the server only records where to send.
        let messaging = MessagingService(devices: devices, providers: PushProviders(), logger: Logger(label: "test"))
        try await withAuthStorageServer(messaging: messaging) { server in
            let app = HearthApp(name: "messaging-\(UUID().uuidString)", options: server.options())
            defer { Task { await app.close() } }
            let deviceToken = Data((0..<32).map { UInt8($0 * 7 % 256) })
            let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
            // Registered while signed out: kept, and sent at the sign-in.
            try await app.messaging.register(apnsToken: deviceToken, sandbox: true)
            #expect(app.messaging.token == hex)
            #expect(try await devices.device(token: hex) == nil)
            let ada = try await app.auth.signInAnonymously()
            let settled1 = try await Self.eventually { try await devices.device(token: hex)?.uid == ada.uid }
            #expect(settled1)
            #expect(try await devices.device(token: hex)?.sandbox == true)
            try await app.messaging.subscribe(toTopic: "campaigns-berlin")
            #expect(try await devices.device(token: hex)?.topics == ["campaigns-berlin"])
            await #expect(throws: Messaging.Failure.self) { try await app.messaging.subscribe(toTopic: "not a topic") }
            try await app.messaging.unsubscribe(fromTopic: "campaigns-berlin")
            #expect(try await devices.device(token: hex)?.topics == [])
            // Sign-out unregisters it.
            try app.auth.signOut()
            let settled2 = try await Self.eventually { try await devices.device(token: hex) == nil }
            #expect(settled2)
            // The next user gets it.
            let bob = try await app.auth.signInAnonymously()
            let settled3 = try await Self.eventually { try await devices.device(token: hex)?.uid == bob.uid }
            #expect(settled3)
            try await app.messaging.unregister()
            #expect(try await devices.device(token: hex) == nil)
        }
    }
}
