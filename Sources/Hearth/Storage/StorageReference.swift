/// A path in a bucket: an object, or a folder of objects. Making one costs nothing and checks
/// nothing; the operations go to the server.
///
/// ```swift
/// let photos = storage.reference("users/\(uid)/photos")
/// let first = photos.child("2024/beach.jpg")   // users/<uid>/photos/2024/beach.jpg
/// let metadata = try await first.putData(bytes)
/// ```
public struct StorageReference: Sendable, Hashable, CustomStringConvertible {
    /// The ``Storage`` whose server and credentials the operations use.
    public let storage: Storage
    /// The bucket the path is in.
    public let bucket: String
    /// The path without leading or trailing slashes; `""` for the root.
    public let fullPath: String

    init(storage: Storage, bucket: String, path: String) {
        self.storage = storage
        self.bucket = bucket
        self.fullPath = Self.normalized(path)
    }

    static func normalized(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// The last segment (`""` for the root).
    public var name: String { fullPath.split(separator: "/").last.map(String.init) ?? "" }

    /// The folder this is in; nil for the root.
    public var parent: StorageReference? {
        guard !fullPath.isEmpty else { return nil }
        guard let slash = fullPath.lastIndex(of: "/") else { return root }
        return StorageReference(storage: storage, bucket: bucket, path: String(fullPath[..<slash]))
    }

    /// The root of the bucket.
    public var root: StorageReference { StorageReference(storage: storage, bucket: bucket, path: "") }

    /// The path `path` below this one (it may have several segments).
    public func child(_ path: String) -> StorageReference {
        StorageReference(storage: storage, bucket: bucket, path: fullPath + "/" + path)
    }

    /// `gs://bucket/path`.
    public var description: String { "gs://\(bucket)/\(fullPath)" }

    /// Equal when storage instance, bucket and path are the same.
    public static func == (lhs: StorageReference, rhs: StorageReference) -> Bool {
        lhs.storage === rhs.storage && lhs.bucket == rhs.bucket && lhs.fullPath == rhs.fullPath
    }

    /// Hashes the storage's identity, the bucket and the path, matching `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(storage))
        hasher.combine(bucket)
        hasher.combine(fullPath)
    }

    /// The object's v0 URL (`…/o/<name as one segment>`).
    var objectURL: String { storage.objectURL(bucket: bucket, path: fullPath) }

    func requireObject() throws {
        guard !fullPath.isEmpty else {
            throw StorageError(code: .invalidArgument, message: "The root of a bucket is not an object; use child(_:).")
        }
    }
}
