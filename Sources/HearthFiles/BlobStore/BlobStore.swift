public import Foundation
public import NIOCore

/// Where object bytes live: immutable blobs named by generated ids, plus resumable upload
/// sessions that grow across requests until they are finalized into a blob.
///
/// The HTTP layer and the object-metadata table talk only to this protocol, so a backend
/// (local disk today, an S3-compatible service later) can be swapped without touching them.
/// Blobs are never modified in place: an overwrite is a new blob, and the old one is deleted
/// once the metadata no longer points at it.
///
/// ```swift
/// // A simple upload: stream the request body, then record the blob in the metadata table.
/// let writer = try await store.makeWriter()
/// do {
///     for try await chunk in request.body { try await writer.write(chunk) }
///     let blob = try await writer.commit()   // durable and visible from here on
///     // save (name → blob.id, blob.digests) in the metadata table
/// } catch {
///     await writer.abort()
///     throw error
/// }
///
/// // A download: chunks arrive in order, memory stays flat.
/// try await store.read(blob.id, range: 0..<1024) { chunk in try await response.write(chunk) }
/// ```
public protocol BlobStore: Sendable {
    /// Starts a new blob. Nothing is visible until ``BlobWriter/commit()``.
    func makeWriter() async throws -> any BlobWriter

    /// Streams the bytes of a blob, or of `range` within it, to `body` in order.
    ///
    /// Throws ``BlobStoreError/Code-swift.struct/notFound`` before calling `body` if the blob
    /// does not exist, and ``BlobStoreError/Code-swift.struct/invalidRange`` unless
    /// `0 <= range.lowerBound` and `range.upperBound <= size`.
    func read(_ id: BlobID, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws

    /// Opens a blob for reading: its bytes stay readable through the handle even if the blob is
    /// deleted meanwhile (an object overwritten while a download of it is still streaming).
    /// Throws ``BlobStoreError/Code-swift.struct/notFound`` if the blob does not exist.
    func open(_ id: BlobID) async throws -> any OpenedBlob

    /// The size of a blob in bytes, or nil if it does not exist.
    func size(of id: BlobID) async throws -> Int64?

    /// Removes a blob; false if it did not exist.
    @discardableResult
    func delete(_ id: BlobID) async throws -> Bool

    /// A new blob with the same bytes (and so the same digests), for GCS copy and rewrite.
    func copy(_ id: BlobID) async throws -> BlobID

    // MARK: Resumable uploads

    /// Creates an empty upload session that survives restarts until finalized or cancelled.
    func startUpload() async throws -> UploadID

    /// Appends `chunks` to a session whose client says they start at byte `offset`.
    ///
    /// Bytes before the session's current size are skipped, as Cloud Storage does when a client
    /// resends a chunk that was partly received; an `offset` past the current size throws
    /// ``BlobStoreError/Code-swift.struct/offsetGap``. Bytes that arrived before `chunks`
    /// failed are kept. Returns the new size, durable when this returns.
    func append<Chunks: AsyncSequence>(
        to upload: UploadID, at offset: Int64, contentsOf chunks: Chunks
    ) async throws -> Int64 where Chunks.Element == ByteBuffer

    /// Bytes received so far, or nil if there is no such session.
    func uploadSize(_ upload: UploadID) async throws -> Int64?

    /// Turns the session's bytes into a blob and ends the session.
    func finalize(_ upload: UploadID) async throws -> BlobInfo

    /// Ends a session and drops its bytes; false if there was no such session.
    @discardableResult
    func cancel(_ upload: UploadID) async throws -> Bool

    /// Removes sessions not appended to since `cutoff`, except those in use right now (GCS
    /// expires sessions after a week; run this periodically). Returns how many were removed.
    func removeUploads(notModifiedSince cutoff: Date) async throws -> Int
}

/// A blob held open for reading (see ``BlobStore/open(_:)``); closed when released.
public protocol OpenedBlob: Sendable {
    /// The blob's size in bytes, fixed when it was opened.
    var size: Int64 { get }

    /// Streams the bytes, or `range` of them, to `body` in order; the same range checks as
    /// ``BlobStore/read(_:range:chunk:)``.
    func read(range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws
}
