import Foundation

/// All repositories over one in-memory state, for unit tests and previews. It keeps the server's
/// rules that matter to screens: one topic per code, comments never edited, the counter moving with
/// each comment, feeds per user. `failNextWith` makes the next call fail (offline, denied, …).
public actor InMemoryBackend {
    struct Account {
        var password: String
        var uid: String
    }

    var accounts: [String: Account] = [:]
    var currentUID: String?
    var topics: [String: Topic] = [:]
    var comments: [String: [String: Comment]] = [:]
    var feeds: [String: [FeedItem]] = [:]
    var profiles: [String: UserProfile] = [:]
    var photos: [String: Data] = [:]
    var nextID = 0
    var millis: Int64
    var failure: AppError?
    private var commentWatchers: [String: [UUID: (limit: Int, continuation: AsyncThrowingStream<[Comment], any Error>.Continuation)]] = [:]
    private var feedWatchers: [String: [UUID: (limit: Int, continuation: AsyncThrowingStream<[FeedItem], any Error>.Continuation)]] = [:]

    /// - Parameter start: the clock's first reading; every write advances it by one millisecond.
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        millis = Int64(start.timeIntervalSince1970 * 1000)
    }

    /// The repositories over this backend.
    public nonisolated var repositories: Repositories {
        Repositories(
            session: InMemorySession(backend: self), topics: InMemoryTopics(backend: self), comments: InMemoryComments(backend: self),
            feeds: InMemoryFeeds(backend: self), profiles: InMemoryProfiles(backend: self), photos: InMemoryPhotos(backend: self))
    }

    /// The next call to any repository fails with `error`.
    public func failNextWith(_ error: AppError) { failure = error }

    func checkFailure() throws(AppError) {
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    func now() -> Date {
        millis += 1
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    func newID() -> String {
        nextID += 1
        return String(format: "id%06d", nextID)
    }

    // MARK: State the repositories share

    func newestComments(_ key: String, limit: Int) -> [Comment] {
        Array((comments[key] ?? [:]).values.sorted { ($0.commentDate, $0.id) > ($1.commentDate, $1.id) }.prefix(limit))
    }

    func newestFeed(_ uid: String, limit: Int) -> [FeedItem] {
        Array((feeds[uid] ?? []).sorted { ($0.timestamp, $0.id) > ($1.timestamp, $1.id) }.prefix(limit))
    }

    func watchComments(_ key: String, limit: Int, _ continuation: AsyncThrowingStream<[Comment], any Error>.Continuation) {
        let id = UUID()
        commentWatchers[key, default: [:]][id] = (limit, continuation)
        continuation.yield(newestComments(key, limit: limit))
        continuation.onTermination = { _ in Task { await self.unwatchComments(key, id) } }
    }

    func unwatchComments(_ key: String, _ id: UUID) { commentWatchers[key]?[id] = nil }

    func watchFeed(_ uid: String, limit: Int, _ continuation: AsyncThrowingStream<[FeedItem], any Error>.Continuation) {
        let id = UUID()
        feedWatchers[uid, default: [:]][id] = (limit, continuation)
        continuation.yield(newestFeed(uid, limit: limit))
        continuation.onTermination = { _ in Task { await self.unwatchFeed(uid, id) } }
    }

    func unwatchFeed(_ uid: String, _ id: UUID) { feedWatchers[uid]?[id] = nil }

    func addFeedItem(_ item: FeedItem, for uid: String) {
        feeds[uid, default: []].append(item)
        for (_, w) in feedWatchers[uid] ?? [:] { w.continuation.yield(newestFeed(uid, limit: w.limit)) }
    }

    func addComment(_ comment: Comment) {
        comments[comment.code, default: [:]][comment.id] = comment
        for (_, w) in commentWatchers[comment.code] ?? [:] { w.continuation.yield(newestComments(comment.code, limit: w.limit)) }
    }
}

struct InMemorySession: SessionRepository {
    let backend: InMemoryBackend

    func currentUserID() async -> String? { await backend.currentUID }

    func register(email: String, password: String) async throws(AppError) -> String {
        try await backend.register(email: email, password: password)
    }

    func signIn(email: String, password: String) async throws(AppError) -> String {
        try await backend.signIn(email: email, password: password)
    }

    func signOut() async { await backend.signOut() }
}

extension InMemoryBackend {
    func register(email: String, password: String) throws(AppError) -> String {
        try checkFailure()
        let email = email.lowercased()
        guard accounts[email] == nil else { throw .accountExists }
        let uid = "u" + newID()
        accounts[email] = Account(password: password, uid: uid)
        currentUID = uid
        return uid
    }

    func signIn(email: String, password: String) throws(AppError) -> String {
        try checkFailure()
        guard let account = accounts[email.lowercased()], account.password == password else { throw .wrongCredentials }
        currentUID = account.uid
        return account.uid
    }

    func signOut() { currentUID = nil }

    func recordScan(_ code: Barcode, by uid: String) throws(AppError) -> Topic {
        try checkFailure()
        let now = now()
        let topic = topics[code.key] ?? Topic(code: code.key, firstScannedAt: now, commentCount: 0)
        topics[code.key] = topic
        addFeedItem(FeedItem(id: newID(), feedType: .topicScanned, timestamp: now, topicCode: code.key), for: uid)
        return topic
    }

    func createComment(id: String, on code: Barcode, text: String, photoURL: String?, author uid: String, profile: UserProfile) throws(AppError)
        -> Comment
    {
        try checkFailure()
        guard var topic = topics[code.key] else { throw .permissionDenied }  // the rules need the topic
        guard comments[code.key]?[id] == nil else { throw .permissionDenied }  // never edited
        let now = now()
        let comment = Comment(
            id: id, code: code.key, userId: uid, displayName: profile.displayName, avatarUrl: profile.avatarUrl, commentText: text,
            commentPhotoUrl: photoURL, commentDate: now)
        topic.commentCount += 1
        topic.lastCommentId = id
        topics[code.key] = topic
        addComment(comment)
        addFeedItem(FeedItem(id: newID(), feedType: .commentCreated, timestamp: now, topicCode: code.key, commentText: text), for: uid)
        return comment
    }

    func page(_ key: String, olderThan before: Comment?, limit: Int) throws(AppError) -> [Comment] {
        try checkFailure()
        let all = newestComments(key, limit: Int.max)
        guard let before else { return Array(all.prefix(limit)) }
        return Array(all.filter { ($0.commentDate, $0.id) < (before.commentDate, before.id) }.prefix(limit))
    }

    func topic(_ key: String) throws(AppError) -> Topic? {
        try checkFailure()
        return topics[key]
    }

    func profile(_ uid: String) throws(AppError) -> UserProfile? {
        try checkFailure()
        return profiles[uid]
    }

    func saveProfile(_ profile: UserProfile, _ uid: String) throws(AppError) {
        try checkFailure()
        guard currentUID == uid else { throw .permissionDenied }
        profiles[uid] = profile
    }

    func storePhoto(_ data: Data, at path: String) throws(AppError) -> String {
        try checkFailure()
        try PhotoPolicy.check(data)
        photos[path] = data
        return "memory://" + path
    }
}

struct InMemoryTopics: TopicRepository {
    let backend: InMemoryBackend

    func topic(_ code: Barcode) async throws(AppError) -> Topic? { try await backend.topic(code.key) }

    func recordScan(_ code: Barcode, by uid: String) async throws(AppError) -> Topic { try await backend.recordScan(code, by: uid) }
}

struct InMemoryComments: CommentRepository {
    let backend: InMemoryBackend

    func page(of code: Barcode, olderThan before: Comment?, limit: Int) async throws(AppError) -> [Comment] {
        try await backend.page(code.key, olderThan: before, limit: limit)
    }

    func newest(of code: Barcode, limit: Int) -> AsyncThrowingStream<[Comment], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[Comment], any Error>.makeStream()
        let backend = self.backend
        Task { await backend.watchComments(code.key, limit: limit, continuation) }
        return stream
    }

    func create(id: String, on code: Barcode, text: String, photoURL: String?, author uid: String, profile: UserProfile)
        async throws(AppError) -> Comment
    {
        try await backend.createComment(id: id, on: code, text: text, photoURL: photoURL, author: uid, profile: profile)
    }

    func newCommentID() -> String { "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16) }
}

struct InMemoryFeeds: FeedRepository {
    let backend: InMemoryBackend

    func newest(of uid: String, limit: Int) -> AsyncThrowingStream<[FeedItem], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[FeedItem], any Error>.makeStream()
        let backend = self.backend
        Task { await backend.watchFeed(uid, limit: limit, continuation) }
        return stream
    }
}

struct InMemoryProfiles: ProfileRepository {
    let backend: InMemoryBackend

    func profile(of uid: String) async throws(AppError) -> UserProfile? { try await backend.profile(uid) }

    func save(_ profile: UserProfile, for uid: String) async throws(AppError) { try await backend.saveProfile(profile, uid) }
}

struct InMemoryPhotos: PhotoRepository {
    let backend: InMemoryBackend

    func uploadAvatar(_ jpeg: Data, for uid: String) async throws(AppError) -> String {
        try await backend.storePhoto(jpeg, at: "users/\(uid)/avatar.jpg")
    }

    func uploadCommentPhoto(_ jpeg: Data, code: Barcode, commentID: String, by uid: String) async throws(AppError) -> String {
        try await backend.storePhoto(jpeg, at: "comments/\(code.key)/\(commentID).jpg")
    }
}
