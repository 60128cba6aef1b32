import Foundation
import Hearth
import HearthCore

extension Repositories {
    /// The repositories over a Hearth server: accounts, the realtime database and file storage.
    public static func hearth(_ app: HearthApp) -> Repositories {
        Repositories(
            session: HearthSession(auth: app.auth), topics: HearthTopics(database: app.database),
            comments: HearthComments(database: app.database), feeds: HearthFeeds(database: app.database),
            profiles: HearthProfiles(database: app.database), photos: HearthPhotos(storage: app.storage))
    }
}

/// Hearth's errors as the screens' errors.
enum ErrorMapping {
    static func app(_ error: any Error) -> AppError {
        if let e = error as? AppError { return e }
        if let e = error as? DatabaseError {
            switch e.code {
            case .permissionDenied: return .permissionDenied
            case .offline, .disconnected: return .offline
            default: return .failed(e.description)
            }
        }
        if let e = error as? AuthError {
            switch e.code {
            case .emailAlreadyInUse: return .accountExists
            case .wrongPassword, .invalidCredential, .userNotFound: return .wrongCredentials
            case .network: return .offline
            case .weakPassword, .invalidEmail, .missingEmail, .missingPassword: return .invalidInput(e.message)
            case .notSignedIn: return .notSignedIn
            default: return .failed(e.message)
            }
        }
        if let e = error as? StorageError {
            switch e.code {
            case .unauthorized: return .permissionDenied
            case .unauthenticated: return .notSignedIn
            case .network: return .offline
            default: return .failed(e.message)
            }
        }
        return .failed("\(error)")
    }
}

/// Runs `body`, turning any error into an `AppError`.
func mapped<T>(_ body: () async throws -> T) async throws(AppError) -> T {
    do {
        return try await body()
    } catch {
        throw ErrorMapping.app(error)
    }
}

struct HearthSession: SessionRepository {
    let auth: Auth

    func currentUserID() async -> String? { auth.currentUser?.uid }

    func register(email: String, password: String) async throws(AppError) -> String {
        try await mapped { try await auth.signUp(email: email, password: password).uid }
    }

    func signIn(email: String, password: String) async throws(AppError) -> String {
        try await mapped { try await auth.signIn(email: email, password: password).uid }
    }

    func signOut() async { try? auth.signOut() }
}

struct HearthTopics: TopicRepository {
    let database: Database

    func topic(_ code: Barcode) async throws(AppError) -> Topic? {
        try await mapped {
            let snapshot = try await database.reference("topics/\(code.key)").getSnapshot()
            return snapshot.exists ? try snapshot.value(as: Topic.self) : nil
        }
    }

    func recordScan(_ code: Barcode, by uid: String) async throws(AppError) -> Topic {
        let feedItem = JSONValue.object([
            JSONMember("feedType", .string(FeedItem.FeedType.topicScanned.rawValue)), JSONMember("timestamp", ServerTime.now),
            JSONMember("topicCode", .string(code.key)),
        ])
        let itemPath = "feeds/\(uid)/\(database.reference("feeds/\(uid)").childByAutoId().key ?? UUID().uuidString)"
        if try await topic(code) == nil {
            // First scan: topic and feed item together. If someone else created the topic a moment
            // ago, the rules refuse this (no reset), and the feed item goes alone below.
            let newTopic = JSONValue.object([
                JSONMember("code", .string(code.key)), JSONMember("firstScannedAt", ServerTime.now), JSONMember("commentCount", .int(0)),
            ])
            do {
                try await database.reference().updateChildValues(json: ["topics/\(code.key)": newTopic, itemPath: feedItem])
                return try await existing(code)
            } catch let error as DatabaseError where error.code == .permissionDenied {
                // Created concurrently: fall through.
            } catch {
                throw ErrorMapping.app(error)
            }
        }
        try await mapped { try await database.reference(itemPath).setValue(json: feedItem) }
        return try await existing(code)
    }

    private func existing(_ code: Barcode) async throws(AppError) -> Topic {
        guard let topic = try await topic(code) else { throw .failed("The topic \(code) could not be read back") }
        return topic
    }
}

/// A query's snapshots, each turned into `T`, with errors as `AppError`s; ends when the consumer stops.
func liveValues<T: Sendable>(of query: DatabaseQuery, _ transform: @escaping @Sendable (DataSnapshot) throws -> T)
    -> AsyncThrowingStream<T, any Error>
{
    AsyncThrowingStream { continuation in
        let task = Task {
            do {
                for try await snapshot in query.snapshots() { continuation.yield(try transform(snapshot)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ErrorMapping.app(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// `{".sv": "timestamp"}`.
enum ServerTime {
    static let now = JSONValue.object([JSONMember(".sv", .string("timestamp"))])
}

struct HearthComments: CommentRepository {
    let database: Database

    private func comments(_ snapshot: DataSnapshot) throws -> [Comment] {
        try snapshot.children.map { child in
            var comment = try child.value(as: Comment.self)
            comment.id = child.key ?? ""
            return comment
        }.sorted { ($0.commentDate, $0.id) > ($1.commentDate, $1.id) }
    }

    func page(of code: Barcode, olderThan before: Comment?, limit: Int) async throws(AppError) -> [Comment] {
        try await mapped {
            var query = database.reference("comments/\(code.key)").queryOrdered(byChild: "commentDate")
            if let before {
                query = query.queryEnding(
                    beforeValue: .int(Int64((before.commentDate.timeIntervalSince1970 * 1000).rounded())), childKey: before.id)
            }
            return try comments(try await query.queryLimited(toLast: limit).getSnapshot())
        }
    }

    func newest(of code: Barcode, limit: Int) -> AsyncThrowingStream<[Comment], any Error> {
        let query = database.reference("comments/\(code.key)").queryOrdered(byChild: "commentDate").queryLimited(toLast: limit)
        return liveValues(of: query) { try comments($0) }
    }

    func create(id: String, on code: Barcode, text: String, photoURL: String?, author uid: String, profile: UserProfile)
        async throws(AppError) -> Comment
    {
        var fields = [
            JSONMember("code", .string(code.key)), JSONMember("userId", .string(uid)), JSONMember("displayName", .string(profile.displayName)),
            JSONMember("commentText", .string(text)), JSONMember("commentDate", ServerTime.now),
        ]
        if let avatar = profile.avatarUrl { fields.append(JSONMember("avatarUrl", .string(avatar))) }
        if let photoURL { fields.append(JSONMember("commentPhotoUrl", .string(photoURL))) }
        let feedKey = database.reference("feeds/\(uid)").childByAutoId().key ?? id
        // One atomic update: the comment, the counter (a server increment, so concurrent comments
        // cannot lose a count) with the id it moved for, and the author's feed item.
        let update: [String: JSONValue] = [
            "comments/\(code.key)/\(id)": .object(fields),
            "topics/\(code.key)/commentCount": .object([JSONMember(".sv", .object([JSONMember("increment", .int(1))]))]),
            "topics/\(code.key)/lastCommentId": .string(id),
            "feeds/\(uid)/\(feedKey)": .object([
                JSONMember("feedType", .string(FeedItem.FeedType.commentCreated.rawValue)), JSONMember("timestamp", ServerTime.now),
                JSONMember("topicCode", .string(code.key)), JSONMember("commentText", .string(text)),
            ]),
        ]
        return try await mapped {
            try await database.reference().updateChildValues(json: update)
            var comment = try await database.reference("comments/\(code.key)/\(id)").getValue(as: Comment.self)
            comment.id = id
            return comment
        }
    }

    func newCommentID() -> String { database.reference("comments").childByAutoId().key ?? UUID().uuidString }
}

struct HearthFeeds: FeedRepository {
    let database: Database

    func newest(of uid: String, limit: Int) -> AsyncThrowingStream<[FeedItem], any Error> {
        let query = database.reference("feeds/\(uid)").queryOrdered(byChild: "timestamp").queryLimited(toLast: limit)
        return liveValues(of: query) { snapshot in
            try snapshot.children.map { child in
                var item = try child.value(as: FeedItem.self)
                item.id = child.key ?? ""
                return item
            }.sorted { ($0.timestamp, $0.id) > ($1.timestamp, $1.id) }
        }
    }
}

struct HearthProfiles: ProfileRepository {
    let database: Database

    func profile(of uid: String) async throws(AppError) -> UserProfile? {
        try await mapped {
            let snapshot = try await database.reference("users/\(uid)").getSnapshot()
            return snapshot.exists ? try snapshot.value(as: UserProfile.self) : nil
        }
    }

    func save(_ profile: UserProfile, for uid: String) async throws(AppError) {
        try await mapped { try await database.reference("users/\(uid)").setValue(profile) }
    }
}

struct HearthPhotos: PhotoRepository {
    let storage: Storage

    private func upload(_ jpeg: Data, to path: String, uploader: String?) async throws(AppError) -> String {
        try PhotoPolicy.check(jpeg)
        return try await mapped {
            let ref = storage.reference(path)
            _ = try await ref.putData(
                jpeg, metadata: StorageMetadata(contentType: "image/jpeg", customMetadata: uploader.map { ["uploader": $0] }))
            return try await ref.downloadURL().absoluteString
        }
    }

    func uploadAvatar(_ jpeg: Data, for uid: String) async throws(AppError) -> String {
        try await upload(jpeg, to: "users/\(uid)/avatar.jpg", uploader: nil)
    }

    func uploadCommentPhoto(_ jpeg: Data, code: Barcode, commentID: String, by uid: String) async throws(AppError) -> String {
        try await upload(jpeg, to: "comments/\(code.key)/\(commentID).jpg", uploader: uid)
    }
}
