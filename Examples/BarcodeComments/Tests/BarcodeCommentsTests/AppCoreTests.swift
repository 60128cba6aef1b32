import BarcodeCommentsCore
import Foundation
import Testing

/// Use cases and view models against the in-memory repositories.
@MainActor
@Suite("Barcode Comments app core")
struct AppCoreTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 100)
    static let ean = "4006381333931"

    func signedIn(_ backend: InMemoryBackend = InMemoryBackend(), name: String = "Ann") async throws -> UseCases {
        let useCases = UseCases(backend.repositories)
        _ = try await useCases.register(email: "\(name.lowercased())@example.com", password: "secret1", displayName: name)
        return useCases
    }

    func eventually(_ what: String, _ check: () -> Bool) async throws {
        for _ in 0..<200 where !check() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(check(), "\(what)")
    }

    @Test func scanningCreatesTheTopicOnceAndNotesEveryScanInTheFeed() async throws {
        let useCases = try await signedIn()
        let first = try await useCases.scan(Self.ean)
        #expect(first.code == Self.ean && first.commentCount == 0)
        let again = try await useCases.scan(" \(Self.ean) ")
        #expect(again.firstScannedAt == first.firstScannedAt)
        let feed = FeedViewModel(useCases)
        await feed.start()
        try await eventually("two scans in the feed") { feed.items.count == 2 }
        #expect(feed.items.allSatisfy { $0.feedType == .topicScanned && $0.topicCode == Self.ean })
        feed.stop()
    }

    @Test func scanRoutesToTheEmptyStateOrTheCommentsAndExplainsBadCodes() async throws {
        let useCases = try await signedIn()
        let scan = ScanViewModel(useCases)
        await scan.scanned(Self.ean)
        guard case .noComments(let code, _)? = scan.route else { Issue.record("route \(String(describing: scan.route))"); return }
        #expect(NoCommentsViewModel(code: code).title.contains(Self.ean))
        _ = try await useCases.comment(on: code, CommentDraft(text: "First!"))
        await scan.scanned(Self.ean)
        guard case .comments(_, let topic)? = scan.route else { Issue.record("route \(String(describing: scan.route))"); return }
        #expect(topic.commentCount == 1)
        await scan.scanned("4006381333932")
        #expect(scan.progress == .failed(.invalidCode(.wrongCheckDigit(.ean13))))
        #expect(scan.route == nil)
    }

    @Test func aCommentMovesTheCounterAndLandsInTheAuthorsFeedWithTheirProfile() async throws {
        let backend = InMemoryBackend()
        let useCases = try await signedIn(backend)
        let code = try Barcode(scanned: Self.ean)
        _ = try await useCases.scan(Self.ean)
        let create = CreateCommentViewModel(code: code, useCases)
        create.text = "  Tastes great  "
        create.photo = Self.jpeg
        #expect(create.canSubmit)
        await create.submit()
        #expect(create.progress == .done)
        let comment = try #require(create.created)
        #expect(comment.commentText == "Tastes great" && comment.displayName == "Ann" && comment.commentPhotoUrl != nil)
        #expect(create.text.isEmpty && create.photo == nil)
        #expect(try await useCases.repositories.topics.topic(code)?.commentCount == 1)

        // Profile changes show on new comments, not old ones.
        _ = try await useCases.updateProfile(displayName: "Annie", avatar: Self.jpeg)
        let second = try await useCases.comment(on: code, CommentDraft(text: "Still great"))
        #expect(second.displayName == "Annie" && second.avatarUrl != nil)
        let comments = try await useCases.repositories.comments.page(of: code, olderThan: nil, limit: 20)
        #expect(comments.map(\.displayName) == ["Annie", "Ann"])
    }

    @Test func badCommentsAreRefusedBeforeAnythingIsWritten() async throws {
        let useCases = try await signedIn()
        let code = try Barcode(scanned: Self.ean)
        _ = try await useCases.scan(Self.ean)
        for (draft, expected) in [
            (CommentDraft(text: "   "), AppError.invalidInput("Write something first.")),
            (CommentDraft(text: String(repeating: "x", count: 501)), .invalidInput("A comment has at most 500 characters.")),
            (CommentDraft(text: "ok", photo: Data("GIF89a".utf8)), .notAnImage),
            (CommentDraft(text: "ok", photo: Data([0xFF, 0xD8, 0xFF]) + Data(count: 5 * 1024 * 1024)), .imageTooLarge(maxBytes: 5 * 1024 * 1024)),
        ] {
            await #expect(throws: expected) { try await useCases.comment(on: code, draft) }
        }
        #expect(try await useCases.repositories.topics.topic(code)?.commentCount == 0)
        let create = CreateCommentViewModel(code: code, useCases)
        create.text = String(repeating: "x", count: 501)
        #expect(!create.canSubmit && create.remainingCharacters == -1)
    }

    @Test func commentsAreNewestFirstPagedByTwentyAndLive() async throws {
        let useCases = try await signedIn()
        let code = try Barcode(scanned: Self.ean)
        _ = try await useCases.scan(Self.ean)
        for i in 0..<25 { _ = try await useCases.comment(on: code, CommentDraft(text: "c\(i)")) }
        let list = CommentsViewModel(code: code, useCases)
        list.start()
        try await eventually("the first page") { list.comments.count == 20 }
        #expect(list.comments.first?.commentText == "c24" && list.comments.last?.commentText == "c5")
        #expect(list.hasMore)
        await list.loadMore()
        #expect(list.comments.count == 25 && list.comments.last?.commentText == "c0")
        #expect(!list.hasMore)
        _ = try await useCases.comment(on: code, CommentDraft(text: "live"))
        try await eventually("the live comment on top") { list.comments.first?.commentText == "live" }
        #expect(list.comments.count == 26)
        list.stop()
    }

    @Test func errorsReachTheScreensAsTypedUserPresentableErrors() async throws {
        let backend = InMemoryBackend()
        let useCases = UseCases(backend.repositories)
        let scan = ScanViewModel(useCases)
        await scan.scanned(Self.ean)
        #expect(scan.progress == .failed(.notSignedIn))

        let register = RegisterViewModel(useCases)
        (register.email, register.password, register.displayName) = ("ann@example.com", "secret1", "Ann")
        #expect(register.canSubmit)
        await register.register()
        #expect(register.progress == .done && register.uid != nil)
        let again = RegisterViewModel(useCases)
        (again.email, again.password, again.displayName) = ("ANN@example.com", "secret1", "Ann")
        await again.register()
        #expect(again.progress == .failed(.accountExists))

        await backend.failNextWith(.offline)
        await scan.scanned(Self.ean)
        #expect(scan.progress == .failed(.offline))
        #expect(AppError.offline.description.contains("offline"))

        let menu = MenuViewModel(useCases)
        await menu.load()
        #expect(menu.profile?.displayName == "Ann")
        await menu.signOut()
        #expect(menu.signedOut)
        let welcome = WelcomeViewModel(useCases)
        await welcome.start()
        #expect(welcome.route == .signedOut)

        let login = LoginViewModel(useCases)
        (login.email, login.password) = ("ann@example.com", "wrong")
        await login.logIn()
        #expect(login.progress == .failed(.wrongCredentials))
        login.password = "secret1"
        await login.logIn()
        #expect(login.progress == .done && login.uid == register.uid)
        await welcome.start()
        #expect(welcome.route == .signedIn(uid: register.uid!))
    }

    @Test func commentingOnACodeNobodyScannedIsRefusedAsTheServerWould() async throws {
        let useCases = try await signedIn()
        let create = CreateCommentViewModel(code: try Barcode(scanned: "96385074"), useCases)
        create.text = "Hello"
        await create.submit()
        #expect(create.progress == .failed(.permissionDenied))
        create.photo = Data([0xFF, 0xD8, 0xFF]) + Data(count: 6 * 1024 * 1024)
        await create.submit()
        #expect(create.progress == .failed(.imageTooLarge(maxBytes: 5 * 1024 * 1024)))
        #expect(AppError.imageTooLarge(maxBytes: 5 * 1024 * 1024).description == "The image is larger than 5 MB.")
    }

    @Test func housekeepingChangesNameAndAvatarAndRefusesBadInput() async throws {
        let useCases = try await signedIn()
        let house = HousekeepingViewModel(useCases)
        await house.load()
        #expect(house.displayName == "Ann")
        house.displayName = " "
        await house.save()
        #expect(house.progress == .failed(.invalidInput("A display name has 1 to 100 characters.")))
        house.displayName = "Ann B."
        house.avatar = Data("not a jpeg".utf8)
        await house.save()
        #expect(house.progress == .failed(.notAnImage))
        house.avatar = Self.jpeg
        await house.save()
        #expect(house.progress == .done && house.profile?.displayName == "Ann B." && house.profile?.avatarUrl != nil)
    }
}
