public import HearthCore

/// The operation a Firebase Storage request performs, as security rules see it.
///
/// `allow read` covers ``get`` and ``list``; `allow write` covers ``create``, ``update`` and
/// ``delete``. The Firebase v0 API maps: metadata GET and downloads → `get`; listing → `list`;
/// uploads → `create` (Firebase production uses `update` when overwriting an existing object);
/// metadata PATCH → `update`; DELETE → `delete`.
public enum StorageRulesMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Reading one object's data or metadata (covered by `allow read` and `allow get`).
    case get
    /// Listing a folder (covered by `allow read` and `allow list`).
    case list
    /// Uploading an object (covered by `allow write` and `allow create`).
    case create
    /// Replacing an object or its metadata (covered by `allow write` and `allow update`).
    case update
    /// Deleting an object (covered by `allow write` and `allow delete`).
    case delete

    var bit: StorageMethodSet {
        switch self {
        case .get: .get
        case .list: .list
        case .create: .create
        case .update: .update
        case .delete: .delete
        }
    }

    /// `get`, `list`, …
    public var description: String { rawValue }
}

/// Everything a rules evaluation reads about one request.
///
/// ```swift
/// let request = StorageRulesRequest(
///     method: .create, bucket: "demo.appspot.com", objectName: "users/alice/avatar.jpg",
///     auth: StorageRulesAuth(uid: "alice"),
///     resource: StorageRulesResource(bucket: "demo.appspot.com", name: "users/alice/avatar.jpg",
///                                    size: 20_000, contentType: "image/jpeg"),
///     time: 1_700_000_000_000)
/// let decision = rules.evaluate(request)
/// ```
public struct StorageRulesRequest: Sendable {
    /// What the request does.
    public var method: StorageRulesMethod
    /// The bucket, bound by the outer `match /b/{bucket}/o`.
    public var bucket: String
    /// The object name split on `/` (for ``StorageRulesMethod/list``: the prefix without its
    /// trailing slash; empty for the bucket root).
    public var path: [String]
    /// The signed-in user, or nil (`request.auth == null`).
    public var auth: StorageRulesAuth?
    /// `request.resource`: the object as it will be after a create or update; nil for reads and
    /// deletes.
    public var resource: StorageRulesResource?
    /// `resource`: the object as it exists now, or nil when there is none (or for `list`).
    public var existing: StorageRulesResource?
    /// `request.time`, milliseconds since 1970-01-01T00:00:00Z (injected so tests are stable).
    public var time: Int64

    /// A request on the object path given as segments.
    public init(
        method: StorageRulesMethod, bucket: String, path: [String], auth: StorageRulesAuth? = nil,
        resource: StorageRulesResource? = nil, existing: StorageRulesResource? = nil, time: Int64
    ) {
        self.method = method
        self.bucket = bucket
        self.path = path
        self.auth = auth
        self.resource = resource
        self.existing = existing
        self.time = time
    }

    /// A request on an object name such as `users/alice/avatar.jpg` (or a list prefix such as
    /// `users/alice/`; a trailing slash is ignored and the empty name is the bucket root).
    public init(
        method: StorageRulesMethod, bucket: String, objectName: String, auth: StorageRulesAuth? = nil,
        resource: StorageRulesResource? = nil, existing: StorageRulesResource? = nil, time: Int64
    ) {
        var name = Substring(objectName)
        if name.hasSuffix("/") { name = name.dropLast() }
        let segments = name.isEmpty ? [] : name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        self.init(method: method, bucket: bucket, path: segments, auth: auth, resource: resource, existing: existing, time: time)
    }
}

/// `request.auth`: who is calling.
public struct StorageRulesAuth: Sendable, Hashable {
    /// `request.auth.uid`.
    public var uid: String
    /// `request.auth.token`: every claim of the ID token (`email`, `email_verified`,
    /// `firebase.sign_in_provider`, custom claims…) as a JSON object.
    public var token: JSONValue

    /// A caller with the given uid and claims (default: no claims).
    public init(uid: String, token: JSONValue = .object([])) {
        self.uid = uid
        self.token = token
    }

    /// The caller described by verified ID-token claims: `uid` is the `user_id` claim, else
    /// `sub`. Nil when the claims are not an object or name no user.
    public init?(claims: JSONValue) {
        guard case .object = claims, let uid = claims["user_id"]?.stringValue ?? claims["sub"]?.stringValue, !uid.isEmpty else {
            return nil
        }
        self.init(uid: uid, token: claims)
    }
}
