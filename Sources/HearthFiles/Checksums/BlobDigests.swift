import Foundation

/// Size and checksums of a blob's bytes, as Cloud Storage reports them.
public struct BlobDigests: Sendable, Hashable {
    /// Number of bytes.
    public var size: Int64
    /// The 16-byte MD5 digest.
    public var md5: [UInt8]
    /// CRC-32C (Castagnoli) of the bytes.
    public var crc32c: UInt32

    /// Digests as stored, for example read back from the metadata table.
    public init(size: Int64, md5: [UInt8], crc32c: UInt32) {
        self.size = size
        self.md5 = md5
        self.crc32c = crc32c
    }

    /// The MD5 digest in GCS `md5Hash` form (base64 of the 16 bytes).
    public var md5Base64: String { BlobDigests.md5Base64(md5) }

    /// The CRC-32C in GCS `crc32c` form (base64 of the 4 bytes big-endian).
    public var crc32cBase64: String { CRC32C.base64(crc32c) }

    /// The value of an `x-goog-hash` response header: `crc32c=<b64>,md5=<b64>`.
    public var googHashHeader: String { "crc32c=\(crc32cBase64),md5=\(md5Base64)" }

    /// Encodes an MD5 digest in GCS `md5Hash` form (base64 of the raw bytes, not of hex).
    public static func md5Base64(_ digest: some Sequence<UInt8>) -> String {
        Data(digest).base64EncodedString()
    }

    /// Digests of no bytes.
    public static let empty: BlobDigests = BlobDigester().digests
}
