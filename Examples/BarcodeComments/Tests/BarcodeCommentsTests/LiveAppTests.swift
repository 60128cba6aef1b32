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

/// The app core against the real `hearth` binary with the example's rules.json and storage.rules, driven
/// by two users; every forbidden action is tried with the SDK directly and refused by the server.
@MainActor
@Suite("Barcode Comments against a live server")
struct LiveAppTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let ean = "4006381333931"
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 1, count: 2048)

    /// The built `hearth` binary (`hearth serve --dev` in a fresh data folder, as a user runs it)
    /// with the example's rules installed; `body` gets its base URL.
    func withServer(_ body: (URL) async throws -> Void) async throws {
        let data = temporaryDataFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try await HearthProcess.serve(data: data)
        let base = URL(string: "http://127.0.0.1:\(server.port)")!
        do {
            try await install(base)
            try await body(base)
        } catch {
            server.signal(SIGKILL)
            _ = try? await server.exitCode()
            throw error
        }
        server.signal(SIGTERM)
        #expect(try await server.exitCode() == 0)
    }

    func install(_ base: URL) async throws {
        var rules = URLRequest(url: base.appendingPathComponent(".settings/rules.json"))
        rules.httpMethod = "PUT"
        rules.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        rules.httpBody = try Data(contentsOf: Self.example.appendingPathComponent("rules.json"))
        var (_, response) = try await URLSession.shared.data(for: rules)
        try #require((response as? HTTPURLResponse)?.statusCode == 200)
        var storageRules = URLRequest(url: base.appendingPathComponent("internal/setRules"))
        storageRules.httpMethod = "PUT"
        storageRules.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let text = try String(contentsOf: Self.example.appendingPathComponent("storage.rules"), encoding: .utf8)
        storageRules.httpBody = try JSONSerialization.data(withJSONObject: ["rules": ["files": [["name": "storage.rules", "content": text]]]])
        (_, response) = try await URLSession.shared.data(for: storageRules)
        try #require((response as? HTTPURLResponse)?.statusCode == 200)
    }

    func app(_ name: String, _ base: URL) -> HearthApp {
        HearthApp(name: name, options: HearthOptions(serverURL: base, projectID: "demo", apiKey: "test-key"))
    }

    func eventually(_ what: String, seconds: Double = 10, _ check: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !check(), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(check(), "\(what)")
    }

    func expectDenied(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what) was allowed")
        } catch {
            let mapped = (error as? DatabaseError).map { $0.code == .permissionDenied } ?? (error as? StorageError).map { $0.code == .unauthorized }
            #expect(mapped == true, "\(what): \(error)")
        }
    }

    @Test func twoUsersCommentLiveAndTheServerRefusesEveryForbiddenAction() async throws {
        try await withServer { base in
            let aliceApp = app("alice", base)
            let bobApp = app("bob", base)
            let alice = UseCases(.hearth(aliceApp))
            let bob = UseCases(.hearth(bobApp))
            let aliceID = try await alice.register(email: "alice@example.com", password: "secret1", displayName: "Alice")
            let bobID = try await bob.register(email: "bob@example.com", password: "secret1", displayName: "Bob")

            // Alice scans a new code: the empty state.
            let scan = ScanViewModel(alice)
            await scan.scanned(Self.ean)
            guard case .noComments(let code, let topic)? = scan.route else {
                Issue.record("route \(String(describing: scan.route)), progress \(scan.progress)")
                return
            }
            #expect(topic.commentCount == 0)

            // Bob watches the topic's comments live.
            let bobList = CommentsViewModel(code: code, bob)
            bobList.start()
            try await eventually("bob's list loaded") { bobList.progress == .done }
            #expect(bobList.comments.isEmpty)

            // Alice comments with a photo; Bob sees it arrive.
            let create = CreateCommentViewModel(code: code, alice)
            create.text = "Great chocolate"
            create.photo = Self.jpeg
            await create.submit()
            #expect(create.progress == .done)
            let first = try #require(create.created)
            try await eventually("bob sees alice's comment") { bobList.comments.map(\.id) == [first.id] }
            let shown = try #require(bobList.comments.first)
            #expect(shown.displayName == "Alice" && shown.userId == aliceID && shown.commentText == "Great chocolate")
            let photoURL = try #require(shown.commentPhotoUrl.flatMap(URL.init(string:)))
            #expect(photoURL.path.contains("comments"))

            // Bob comments without a photo.
            let second = try await bob.comment(on: code, CommentDraft(text: "Too sweet"))
            #expect(second.commentPhotoUrl == nil)
            try await eventually("both comments, newest first") { bobList.comments.map(\.commentText) == ["Too sweet", "Great chocolate"] }
            #expect(try await alice.repositories.topics.topic(code)?.commentCount == 2)

            // Feeds stay separate.
            let aliceFeed = FeedViewModel(alice)
            await aliceFeed.start()
            let bobFeed = FeedViewModel(bob)
            await bobFeed.start()
            try await eventually("alice's feed") { aliceFeed.items.count == 2 }
            try await eventually("bob's feed") { bobFeed.items.count == 1 }
            #expect(aliceFeed.items.map(\.feedType) == [.commentCreated, .topicScanned])
            #expect(bobFeed.items.map(\.feedType) == [.commentCreated] && bobFeed.items[0].commentText == "Too sweet")

            // A new display name and avatar show on new comments.
            _ = try await alice.updateProfile(displayName: "Alice B.", avatar: Self.jpeg)
            let third = try await alice.comment(on: code, CommentDraft(text: "Bought again"))
            #expect(third.displayName == "Alice B." && third.avatarUrl != nil)

            // Every forbidden action is refused by the server, not only by the app.
            let db = bobApp.database
            await expectDenied("editing another's comment") {
                try await db.reference("comments/\(code.key)/\(first.id)/commentText").setValue("edited")
            }
            await expectDenied("writing another's feed") {
                try await db.reference("feeds/\(aliceID)/x").setValue(json: .object([
                    .init("feedType", .string("TOPIC_SCANNED")), .init("timestamp", .object([.init(".sv", .string("timestamp"))])),
                    .init("topicCode", .string(code.key)),
                ]))
            }
            await expectDenied("reading another's feed") { _ = try await db.reference("feeds/\(aliceID)").getSnapshot() }
            await expectDenied("a comment in someone else's name") {
                try await db.reference().updateChildValues(json: [
                    "comments/\(code.key)/fake": .object([
                        .init("code", .string(code.key)), .init("userId", .string(aliceID)), .init("displayName", .string("Alice")),
                        .init("commentText", .string("I hate it")), .init("commentDate", .object([.init(".sv", .string("timestamp"))])),
                    ]),
                    "topics/\(code.key)/commentCount": .object([.init(".sv", .object([.init("increment", .int(1))]))]),
                    "topics/\(code.key)/lastCommentId": .string("fake"),
                ])
            }
            await expectDenied("inflating the counter") { try await db.reference("topics/\(code.key)/commentCount").setValue(100) }
            await expectDenied("uploading a non-image") {
                _ = try await bobApp.storage.reference("comments/\(code.key)/x.jpg").putData(
                    Data("hello".utf8), metadata: StorageMetadata(contentType: "text/plain", customMetadata: ["uploader": bobID]))
            }
            await expectDenied("uploading to another's avatar") {
                _ = try await bobApp.storage.reference("users/\(aliceID)/avatar.jpg").putData(
                    Self.jpeg, metadata: StorageMetadata(contentType: "image/jpeg"))
            }
            // Nothing of that landed.
            #expect(try await alice.repositories.topics.topic(code)?.commentCount == 3)
            let page = try await alice.repositories.comments.page(of: code, olderThan: nil, limit: 20)
            #expect(page.map(\.commentText) == ["Bought again", "Too sweet", "Great chocolate"])
            // Older pages continue strictly before the last comment shown.
            let older = try await bob.repositories.comments.page(of: code, olderThan: page[0], limit: 1)
            #expect(older.map(\.commentText) == ["Too sweet"])
            let oldest = try await bob.repositories.comments.page(of: code, olderThan: page[1], limit: 20)
            #expect(oldest.map(\.commentText) == ["Great chocolate"])

            bobList.stop()
            aliceFeed.stop()
            bobFeed.stop()
            await aliceApp.close()
            await bobApp.close()
        }
    }
}
