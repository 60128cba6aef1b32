public import Foundation

/// The signed-in account, as the server last described it.
///
/// A value: it does not change by itself. ``Auth/currentUser`` and ``Auth/authStateChanges``
/// give the newest one after sign-ins, profile changes and ``Auth/reload()``.
public struct User: Sendable, Hashable, Codable {
    /// The account's id (`localId`); stays the same when credentials are linked.
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    /// E.164 (`+15555550100`).
    public var phoneNumber: String?
    public var displayName: String?
    public var photoURL: URL?
    /// Signed in with ``Auth/signInAnonymously()`` and no credential linked yet.
    public var isAnonymous: Bool
    /// The linked sign-in providers (`password`, `phone`, …); empty for anonymous and
    /// custom-token users.
    public var providerIDs: [String]
    public var metadata: UserMetadata

    public init(
        uid: String, email: String? = nil, emailVerified: Bool = false, phoneNumber: String? = nil, displayName: String? = nil,
        photoURL: URL? = nil, isAnonymous: Bool = false, providerIDs: [String] = [], metadata: UserMetadata = UserMetadata()
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.photoURL = photoURL
        self.isAnonymous = isAnonymous
        self.providerIDs = providerIDs
        self.metadata = metadata
    }
}

/// When an account was created and last signed in.
public struct UserMetadata: Sendable, Hashable, Codable {
    public var creationDate: Date?
    public var lastSignInDate: Date?

    public init(creationDate: Date? = nil, lastSignInDate: Date? = nil) {
        self.creationDate = creationDate
        self.lastSignInDate = lastSignInDate
    }
}
