import Foundation

/// `/topics/{code}`: a scanned barcode.
public struct Topic: Codable, Sendable, Hashable {
    public var code: String
    public var firstScannedAt: Date
    public var commentCount: Int
    /// The comment the last counter move belongs to (the rules tie the counter to real comments).
    public var lastCommentId: String?

    public init(code: String, firstScannedAt: Date, commentCount: Int, lastCommentId: String? = nil) {
        self.code = code
        self.firstScannedAt = firstScannedAt
        self.commentCount = commentCount
        self.lastCommentId = lastCommentId
    }

    public var barcode: Barcode? { Barcode(key: code) }
}

/// `/comments/{code}/{commentId}`; the author's name and avatar are copied in so a list renders
/// without looking up profiles.
public struct Comment: Codable, Sendable, Hashable, Identifiable {
    /// The comment's key (not stored in the value).
    public var id: String = ""
    public var code: String
    public var userId: String
    public var displayName: String
    public var avatarUrl: String?
    public var commentText: String
    public var commentPhotoUrl: String?
    public var commentDate: Date

    enum CodingKeys: String, CodingKey {
        case code, userId, displayName, avatarUrl, commentText, commentPhotoUrl, commentDate
    }

    public init(
        id: String, code: String, userId: String, displayName: String, avatarUrl: String? = nil, commentText: String,
        commentPhotoUrl: String? = nil, commentDate: Date
    ) {
        self.id = id
        self.code = code
        self.userId = userId
        self.displayName = displayName
        self.avatarUrl = avatarUrl
        self.commentText = commentText
        self.commentPhotoUrl = commentPhotoUrl
        self.commentDate = commentDate
    }
}

/// `/feeds/{uid}/{itemId}`: what the user scanned and wrote, newest first.
public struct FeedItem: Codable, Sendable, Hashable, Identifiable {
    public enum FeedType: String, Codable, Sendable {
        case topicScanned = "TOPIC_SCANNED"
        case commentCreated = "COMMENT_CREATED"
    }

    public var id: String = ""
    public var feedType: FeedType
    public var timestamp: Date
    public var topicCode: String
    public var commentText: String?

    enum CodingKeys: String, CodingKey {
        case feedType, timestamp, topicCode, commentText
    }

    public init(id: String, feedType: FeedType, timestamp: Date, topicCode: String, commentText: String? = nil) {
        self.id = id
        self.feedType = feedType
        self.timestamp = timestamp
        self.topicCode = topicCode
        self.commentText = commentText
    }
}

/// `/users/{uid}`.
public struct UserProfile: Codable, Sendable, Hashable {
    public var displayName: String
    public var avatarUrl: String?

    public init(displayName: String, avatarUrl: String? = nil) {
        self.displayName = displayName
        self.avatarUrl = avatarUrl
    }
}

/// What went wrong, in a form a screen can show.
public enum AppError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidCode(BarcodeError)
    case notSignedIn
    case offline
    case permissionDenied
    case imageTooLarge(maxBytes: Int)
    case notAnImage
    case invalidInput(String)
    case wrongCredentials
    case accountExists
    case failed(String)

    public var description: String {
        switch self {
        case .invalidCode(let e): e.description
        case .notSignedIn: "Please sign in first."
        case .offline: "You are offline. Your changes will be sent when you are back online."
        case .permissionDenied: "You are not allowed to do that."
        case .imageTooLarge(let max): "The image is larger than \(max / (1024 * 1024)) MB."
        case .notAnImage: "Only JPEG images can be attached."
        case .invalidInput(let message): message
        case .wrongCredentials: "The email or password is wrong."
        case .accountExists: "An account with this email already exists."
        case .failed(let message): "Something went wrong: \(message)"
        }
    }
}
