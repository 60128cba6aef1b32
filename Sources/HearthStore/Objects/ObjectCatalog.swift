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
    func read<R: Sendable>(_ body: @Sendable (any ObjectTransaction) throws -> R) async throws -> R
}

/// The primitive operations a catalog backend provides; listing and the rest are built on them.
/// Names compare as UTF-8 bytes (code point order), as Cloud Storage lists them.
public protocol ObjectTransaction: OutboxReader, OutboxWriter {
    func bucket(_ name: String) throws -> BucketRecord?
    func buckets() throws -> [BucketRecord]
    func saveBucket(_ bucket: BucketRecord) throws
    func deleteBucket(_ name: String) throws
    func hasObjects(bucket: String) throws -> Bool

    func object(bucket: String, name: String) throws -> ObjectRecord?
    func saveObject(_ object: ObjectRecord) throws
    func deleteObject(bucket: String, name: String) throws
    /// Objects with `lower <= name` (or `<` when `!inclusive`) and `name < upper` (when given), by name, at most `limit`.
    func objects(bucket: String, from lower: String, inclusive: Bool, before upper: String?, limit: Int) throws -> [ObjectRecord]

    /// Resumable upload sessions: opaque data by id.
    func upload(_ id: String) throws -> Data?
    func saveUpload(_ id: String, data: Data, created: Int64) throws
    func deleteUpload(_ id: String) throws
    func deleteUploads(createdBefore: Int64) throws
}

extension String {
    /// Byte-wise (UTF-8) ordering, the order Cloud Storage and SQLite's BINARY collation use.
    public func utf8Precedes(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}
