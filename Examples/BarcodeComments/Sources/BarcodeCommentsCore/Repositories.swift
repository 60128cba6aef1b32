import Foundation

/// What the user typed for a new comment.
public struct CommentDraft: Sendable, Hashable {
    public var text: String
    /// JPEG bytes, optional.
    public var photo: Data?

    public init(text: String, photo: Data? = nil) {
        self.text = text
        self.photo = photo
    }
}

/// Accounts: who is signed in.
public protocol SessionRepository: Sendable {
    /// The signed-in user's id, if any.
    func currentUserID() async -> String?
    func register(email: String, password: String) async throws(AppError) -> String
    func signIn(email: String, password: String) async throws(AppError) -> String
    func signOut() async
}

/// Topics and the user's feed of scans.
public protocol TopicRepository: Sendable {
    func topic(_ code: Barcode) async throws(AppError) -> Topic?
    /// Creates the topic on its first scan (count 0, server time) and adds a `TOPIC_SCANNED` item
    /// to the scanner's feed; returns the topic as it is now.
    func recordScan(_ code: Barcode, by uid: String) async throws(AppError) -> Topic
}

/// Comments of a topic, newest first.
public protocol CommentRepository: Sendable {
    /// Up to `limit` comments older than `before` (nil = the newest), newest first.
    func page(of code: Barcode, olderThan before: Comment?, limit: Int) async throws(AppError) -> [Comment]
    /// The newest `limit` comments, again after every change, newest first.
    func newest(of code: Barcode, limit: Int) -> AsyncThrowingStream<[Comment], any Error>
    /// Writes the comment, moves the topic's counter and adds a `COMMENT_CREATED` feed item in one
    /// atomic update; `photoURL` was uploaded before.
    func create(id: String, on code: Barcode, text: String, photoURL: String?, author uid: String, profile: UserProfile)
        async throws(AppError) -> Comment
    /// A new comment id (chronological, unique).
    func newCommentID() -> String
}

/// A user's own feed, newest first.
public protocol FeedRepository: Sendable {
    func newest(of uid: String, limit: Int) -> AsyncThrowingStream<[FeedItem], any Error>
}

/// Profiles (`/users/{uid}`).
public protocol ProfileRepository: Sendable {
    func profile(of uid: String) async throws(AppError) -> UserProfile?
    func save(_ profile: UserProfile, for uid: String) async throws(AppError)
}

/// Images in file storage; returns download URLs.
public protocol PhotoRepository: Sendable {
    func uploadAvatar(_ jpeg: Data, for uid: String) async throws(AppError) -> String
    func uploadCommentPhoto(_ jpeg: Data, code: Barcode, commentID: String, by uid: String) async throws(AppError) -> String
}

/// Every repository the app uses, so screens take one value (Hearth-backed in the app, in memory in tests).
public struct Repositories: Sendable {
    public var session: any SessionRepository
    public var topics: any TopicRepository
    public var comments: any CommentRepository
    public var feeds: any FeedRepository
    public var profiles: any ProfileRepository
    public var photos: any PhotoRepository

    public init(
        session: any SessionRepository, topics: any TopicRepository, comments: any CommentRepository, feeds: any FeedRepository,
        profiles: any ProfileRepository, photos: any PhotoRepository
    ) {
        self.session = session
        self.topics = topics
        self.comments = comments
        self.feeds = feeds
        self.profiles = profiles
        self.photos = photos
    }
}

/// Photo checks shared by every `PhotoRepository`: JPEG only, at most 5 MB (the storage rules' limit).
public enum PhotoPolicy {
    public static let maxBytes = 5 * 1024 * 1024

    public static func check(_ data: Data) throws(AppError) {
        guard data.count <= maxBytes else { throw .imageTooLarge(maxBytes: maxBytes) }
        guard data.count >= 3, data.prefix(3) == Data([0xFF, 0xD8, 0xFF]) else { throw .notAnImage }
    }
}
