import BarcodeCommentsCore
import Foundation
import Hearth
import HearthCore
import HearthTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Barcode Comments' push: the built `hearth-functions-example` with the example's rules and APNs pointed at a
/// loopback APNs double. A new comment on a topic reaches everyone who commented on it before, never its author.
@MainActor
@Suite("Barcode Comments push against a live server", .serialized)
struct PushLiveTests {
    @Test func earlierCommentersHearOfANewComment() async throws {
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data + "/secrets", withIntermediateDirectories: true)
        let (apns, push) = try await APNsDouble.forServer(bundleID: "com.example.barcodes", folder: data + "/secrets")
        let server = try HearthProcess(
            executable: try HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-functions-example"),
            arguments: ["serve", "--port", "0", "--data", data + "/db", "--dev"] + push)
        do {
            try await server.waitForPort()
            let base = URL(string: "http://127.0.0.1:\(server.port)")!
            try await LiveAppTests().install(base)
            var users: [(app: HearthApp, useCases: UseCases, token: String)] = []
            for (n, name) in ["alice", "bob", "carol"].enumerated() {
                let app = LiveAppTests().app("push-\(name)", base)
                let useCases = UseCases(.hearth(app))
                _ = try await useCases.register(email: "\(name)@example.com", password: "secret1", displayName: name.capitalized)
                try await app.messaging.register(apnsToken: Data(repeating: UInt8(0x10 + n), count: 32))
                users.append((app, useCases, String(repeating: String(format: "%02x", 0x10 + n), count: 32)))
            }
            let topic = try await users[0].useCases.scan(LiveAppTests.ean)
            let code = try Barcode(scanned: topic.code)
            _ = try await users[0].useCases.comment(on: code, CommentDraft(text: "Great chocolate"))
            _ = try await users[1].useCases.comment(on: code, CommentDraft(text: "Too sweet"))
            _ = try await users[2].useCases.comment(on: code, CommentDraft(text: "Bought it twice"))
            // Alice hears of Bob's and Carol's comments, Bob of Carol's, Carol of nothing.
            let deadline = ContinuousClock.now + .seconds(20)
            while apns.received.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(500))
            let bodies = { (token: String) in apns.received.filter { $0.token == token }.compactMap { $0.payload["aps"]?["alert"]?["body"]?.stringValue } }
            #expect(bodies(users[0].token).sorted() == ["Bought it twice", "Too sweet"])
            #expect(bodies(users[1].token) == ["Bought it twice"])
            #expect(bodies(users[2].token).isEmpty)
            #expect(apns.received.first?.payload["code"] == .string(topic.code))
            for user in users { await user.app.close() }
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
