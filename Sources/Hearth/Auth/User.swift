public import Foundation

/// The signed-in account, as the server last described it.
///
/// A value: it does not change by itself. ``Auth/currentUser`` and ``Auth/authStateChanges``
/// give the newest one after sign-ins, profile changes and ``Auth/reload()``.
public struct User: Sendable, Hashable, Codable {
    /// The account's id (`localId`); stays the same when credentials are linked.
    public var uid: String
    /// The account's email address, if it has one.
    public var email: String?
    /// Whether the owner of ``email`` has confirmed it (see ``Auth/sendEmailVerification()``).
    public var emailVerified: Bool
    /// E.164 (`+15555550100`).
    public var phoneNumber: String?
    /// The name shown for the account, set by the app (see ``Auth/updateProfile(displayName:photoURL:removePhotoURL:)``).
    public var displayName: String?
    /// A picture of the account's owner, set by the app or taken from an identity provider.
    public var photoURL: URL?
    /// Signed in with ``Auth/signInAnonymously()`` and no credential linked yet.
    public var isAnonymous: Bool
    /// The linked sign-in providers (`password`, `phone`, …); empty for anonymous and
    /// custom-token users.
    public var providerIDs: [String]
    /// When the account was created and last signed in.
    public var metadata: UserMetadata

    /// Makes a user value, for previews and tests; the SDK builds its own from the server's answers.
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
    /// When the account was made (the server's `createdAt`); nil if the server did not say.
    public var creationDate: Date?
    /// The last sign-in on any device (the server's `lastLoginAt`); nil if the server did not say.
    public var lastSignInDate: Date?

    /// Dates for previews and tests; the SDK reads them from the server.
    public init(creationDate: Date? = nil, lastSignInDate: Date? = nil) {
        self.creationDate = creationDate
        self.lastSignInDate = lastSignInDate
    }
}
