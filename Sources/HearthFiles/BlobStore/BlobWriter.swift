public import NIOCore

/// One blob being written: chunks stream in, digests are computed as they pass, and the blob
/// becomes visible all at once on ``commit()`` or never.
///
/// Use from one task at a time. A writer that is dropped without `commit` or `abort` leaves at
/// most a temporary file, which the store removes (at the latest on its next start).
public protocol BlobWriter: Sendable {
    /// Appends bytes.
    func write(_ chunk: ByteBuffer) async throws

    /// Size, MD5 and CRC-32C of the bytes written so far (check client-sent hashes here and
    /// ``abort()`` on a mismatch, before anything becomes visible).
    var digests: BlobDigests { get async }

    /// Makes the blob durable (file and folder synced) and visible, and returns its id.
    func commit() async throws -> BlobInfo

    /// Drops everything written; the writer cannot be used afterwards. Never throws.
    func abort() async
}
