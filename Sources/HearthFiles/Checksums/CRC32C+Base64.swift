import Foundation

extension CRC32C {
    /// The checksum in Google Cloud Storage's wire form: the four bytes big-endian, base64.
    ///
    /// This is the `crc32c` field of an object resource and the `crc32c=` item of
    /// `x-goog-hash`; the checksum of no bytes is `"AAAAAA=="`.
    public var base64: String { CRC32C.base64(value) }

    /// Encodes a checksum in GCS wire form (four bytes big-endian, base64).
    public static func base64(_ value: UInt32) -> String {
        withUnsafeBytes(of: value.bigEndian) { Data($0).base64EncodedString() }
    }

    /// Decodes a GCS wire-form checksum, as clients send it in upload metadata or
    /// `x-goog-hash`; nil unless it is base64 of exactly four bytes.
    public static func value(base64 text: some StringProtocol) -> UInt32? {
        guard let data = Data(base64Encoded: String(text)), data.count == 4 else { return nil }
        return data.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
    }
}
