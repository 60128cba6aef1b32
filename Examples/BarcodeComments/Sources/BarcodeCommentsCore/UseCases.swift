import Foundation

/// The app's actions, over any `Repositories` (Hearth-backed or in memory).
public struct UseCases: Sendable {
    public let repositories: Repositories
    /// Comments per page (newest first).
    public static let pageSize = 20
    public static let maxCommentLength = 500
    public static let maxDisplayNameLength = 100

    public init(_ repositories: Repositories) { self.repositories = repositories }

    func signedIn() async throws(AppError) -> String {
        guard let uid = await repositories.session.currentUserID() else { throw .notSignedIn }
        return uid
    }

    /// Validates a scanned string, creates its topic on the first scan and notes it in the feed.
    public func scan(_ scanned: String) async throws(AppError) -> Topic {
        let code: Barcode
        do {
            code = try Barcode(scanned: scanned)
        } catch {
            throw .invalidCode(error)
        }
        let uid = try await signedIn()
        return try await repositories.topics.recordScan(code, by: uid)
    }

    /// Registers, signs in and creates the profile comments will show.
    public func register(email: String, password: String, displayName: String) async throws(AppError) -> String {
        let name = try Self.checkedDisplayName(displayName)
        let uid = try await repositories.session.register(email: email.trimmingCharacters(in: .whitespaces), password: password)
        try await repositories.profiles.save(UserProfile(displayName: name), for: uid)
        return uid
    }

    public func signIn(email: String, password: String) async throws(AppError) -> String {
        try await repositories.session.signIn(email: email.trimmingCharacters(in: .whitespaces), password: password)
    }

    /// Writes a comment (uploading its photo first), moving the topic's counter and adding it to the
    /// author's feed in one atomic update (see README: why not a trigger).
    public func comment(on code: Barcode, _ draft: CommentDraft) async throws(AppError) -> Comment {
        let text = draft.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .invalidInput("Write something first.") }
        guard text.count <= Self.maxCommentLength else {
            throw .invalidInput("A comment has at most \(Self.maxCommentLength) characters.")
        }
        if let photo = draft.photo { try PhotoPolicy.check(photo) }
        let uid = try await signedIn()
        let profile = try await repositories.profiles.profile(of: uid) ?? UserProfile(displayName: "Anonymous")
        let id = repositories.comments.newCommentID()
        var photoURL: String?
        if let photo = draft.photo {
            photoURL = try await repositories.photos.uploadCommentPhoto(photo, code: code, commentID: id, by: uid)
        }
        return try await repositories.comments.create(id: id, on: code, text: text, photoURL: photoURL, author: uid, profile: profile)
    }

    /// Changes the display name and, with `avatar` JPEG bytes, the avatar; later comments copy them.
    public func updateProfile(displayName: String, avatar: Data?) async throws(AppError) -> UserProfile {
        let name = try Self.checkedDisplayName(displayName)
        let uid = try await signedIn()
        var profile = try await repositories.profiles.profile(of: uid) ?? UserProfile(displayName: name)
        profile.displayName = name
        if let avatar { profile.avatarUrl = try await repositories.photos.uploadAvatar(avatar, for: uid) }
        try await repositories.profiles.save(profile, for: uid)
        return profile
    }

    static func checkedDisplayName(_ name: String) throws(AppError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxDisplayNameLength else {
            throw .invalidInput("A display name has 1 to \(maxDisplayNameLength) characters.")
        }
        return trimmed
    }
}
