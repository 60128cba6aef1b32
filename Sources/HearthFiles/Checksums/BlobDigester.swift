import Crypto
public import NIOCore

/// Computes size, MD5 and CRC-32C in one pass as bytes stream by.
///
/// ```swift
/// var digester = BlobDigester()
/// for try await chunk in body { digester.update(chunk) }
/// let digests = digester.digests   // size, md5, crc32c
/// ```
public struct BlobDigester {
    // Internal so that a file sink can run the two on different threads (`HashedBytes`).
    var md5 = Insecure.MD5()
    var crc = CRC32C()
    /// Bytes fed so far.
    public internal(set) var size: Int64 = 0

    /// A digester that has seen no bytes.
    public init() {}

    /// Feeds raw bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        md5.update(bufferPointer: bytes)
        crc.update(bytes)
        size += Int64(bytes.count)
    }

    /// Feeds the readable bytes of a buffer (the buffer is not consumed).
    public mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    /// The digests of everything fed so far; feeding may continue afterwards.
    public var digests: BlobDigests {
        BlobDigests(size: size, md5: Array(md5.finalize()), crc32c: crc.value)
    }
}

// Insecure.MD5 is a copy-on-write value (a class holding the C context, copied before any
// mutation unless uniquely referenced), so a BlobDigester value can move between tasks safely;
// swift-crypto just does not declare it Sendable.
extension BlobDigester: @unchecked Sendable {}
