public import Foundation

/// Where object and bucket metadata live (the bytes are in a `BlobStore`). Every change runs in
/// a transaction, so a precondition check and the write it guards cannot interleave with
/// another request's.
///
/// ```swift
/// let replaced = try await catalog.transaction { tx in
///     let old = try tx.object(bucket: "b", name: "a.txt")
///     try tx.saveObject(record)
///     return old
/// }
/// ```
public protocol ObjectCatalog: Sendable {
    /// Runs `body` atomically; backends may run several callers' bodies in one commit (each
    /// still all-or-nothing), so `body` may run on another task before this returns.
    func transaction<R: Sendable>(_ body: @escaping @Sendable (any ObjectTransaction) throws -> R) async throws -> R
    /// Runs `body` on a consistent view without committing; writes inside it fail or are discarded.
    func read<R: Sendable>(_ body: @Sendable (any ObjectTransaction) throws -> R) async throws -> R
}

/// The primitive operations a catalog backend provides; listing and the rest are built on them.
/// Names compare as UTF-8 bytes (code point order), as Cloud Storage lists them.
public protocol ObjectTransaction: OutboxReader, OutboxWriter {
    /// The bucket with this name, if it exists.
    func bucket(_ name: String) throws -> BucketRecord?
    /// Every bucket, by name.
    func buckets() throws -> [BucketRecord]
    /// Creates the bucket or replaces its record.
    func saveBucket(_ bucket: BucketRecord) throws
    /// Removes the bucket together with its object records (their blobs are the caller's to delete).
    func deleteBucket(_ name: String) throws
    /// Whether the bucket holds at least one object.
    func hasObjects(bucket: String) throws -> Bool

    /// The object's metadata, if it exists.
    func object(bucket: String, name: String) throws -> ObjectRecord?
    /// Creates or replaces the record for `object.bucket` and `object.name`.
    func saveObject(_ object: ObjectRecord) throws
    /// Removes the object's record (no error when absent); the blob is the caller's to delete.
    func deleteObject(bucket: String, name: String) throws
    /// Objects with `lower <= name` (or `<` when `!inclusive`) and `name < upper` (when given), by name, at most `limit`.
    func objects(bucket: String, from lower: String, inclusive: Bool, before upper: String?, limit: Int) throws -> [ObjectRecord]

    /// Resumable upload sessions: opaque data by id.
    func upload(_ id: String) throws -> Data?
    /// Creates or replaces a session's data; `created` is milliseconds since 1970.
    func saveUpload(_ id: String, data: Data, created: Int64) throws
    /// Removes a session's data (no error when absent).
    func deleteUpload(_ id: String) throws
    /// Removes sessions created before `createdBefore` (milliseconds since 1970).
    func deleteUploads(createdBefore: Int64) throws
}

extension String {
    /// Byte-wise (UTF-8) ordering, the order Cloud Storage and SQLite's BINARY collation use.
    public func utf8Precedes(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}
