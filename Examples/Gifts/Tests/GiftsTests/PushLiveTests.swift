import Foundation
import GiftsCore
import Hearth
import HearthCore
import HearthTesting
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Gifts' push: the built `hearth-functions-example` with APNs pointed at a loopback APNs double. The owner hears
/// that a wish was reserved, and nothing in the notification says by whom.
@MainActor
@Suite("Gifts push against a live server", .serialized)
struct PushLiveTests {
    @Test func theOwnerHearsOfAReservationButNotWhoMadeIt() async throws {
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data + "/secrets", withIntermediateDirectories: true)
        let (apns, push) = try await APNsDouble.forServer(bundleID: "com.example.gifts", folder: data + "/secrets")
        let server = try HearthProcess(
            executable: try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example"),
            arguments: ["serve", "--port", "0", "--data", data + "/db", "--dev"] + push)
        do {
            try await server.waitForPort()
            let rules = try String(contentsOf: LiveAppTests.example.appendingPathComponent("rules.json"), encoding: .utf8)
            try #require(try await server.request(.PUT, "/.settings/rules.json", body: rules).0 == 200)
            let options = HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", apiKey: "gifts-key")
            let ownerApp = HearthApp(name: "push-owner", options: options)
            let friendApp = HearthApp(name: "push-friend", options: options)
            let owner = UseCases(.hearth(ownerApp))
            let friend = UseCases(.hearth(friendApp))
            let ownerID = try await owner.signUp(email: "olga@example.com", password: "secret-123", firstName: "Olga", lastName: "Owner")
            let friendID = try await friend.signUp(email: "fritz@example.com", password: "secret-123", firstName: "Fritz", lastName: "Friend")
            try await ownerApp.messaging.register(apnsToken: Data(repeating: 0x0A, count: 32))
            try await friendApp.messaging.register(apnsToken: Data(repeating: 0x0F, count: 32))
            let wishID = try await owner.createWish(WishDraft(name: "Red bicycle"))
            var wish: Wish?
            for try await list in friend.wishes(of: ownerID) {
                wish = list.first { $0.id == wishID }
                if wish != nil { break }
            }
            try await friend.reserve(try #require(wish), of: ownerID)

            let deadline = ContinuousClock.now + .seconds(20)
            while apns.received.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(500))
            #expect(apns.received.map(\.token) == [String(repeating: "0a", count: 32)])
            let note = try #require(apns.received.first)
            #expect(note.payload["aps"]?["alert"]?["body"] == .string("Someone will give you \"Red bicycle\"."))
            // Nothing in it names the reserver.
            let text = String(decoding: note.payload.jsonBytes, as: UTF8.self)
            for secret in [friendID, "Fritz", "Friend", "fritz"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
            await ownerApp.close()
            await friendApp.close()
        } catch {
            server.signal(SIGKILL)
            _ = try? await server.exitCode()
            await apns.stop()
            throw error
        }
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
        await apns.stop()
    }
}
