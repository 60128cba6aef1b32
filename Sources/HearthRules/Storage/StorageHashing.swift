import Crypto
import HearthCore

/// The digests behind `hashing.crc32/crc32c/md5/sha256` and the encodings of `bytes`: MD5 and
/// SHA-256 from swift-crypto, the two small CRC tables here (HearthRules cannot see HearthFiles).
enum StorageHashing {
    static func crc32(_ bytes: [UInt8]) -> [UInt8] { bigEndian(crc(bytes, table: crc32Table)) }
    static func crc32c(_ bytes: [UInt8]) -> [UInt8] { bigEndian(crc(bytes, table: crc32cTable)) }

    private static let crc32Table = makeTable(0xEDB8_8320)
    private static let crc32cTable = makeTable(0x82F6_3B78)

    private static func makeTable(_ polynomial: UInt32) -> [UInt32] {
        (0..<256).map { n in
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? polynomial ^ (c >> 1) : c >> 1 }
            return c
        }
    }

    private static func crc(_ bytes: [UInt8], table: [UInt32]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// `hashing.md5` and `hashing.sha256`: swift-crypto's digests.
    static func md5(_ bytes: [UInt8]) -> [UInt8] { Array(Insecure.MD5.hash(data: bytes)) }
    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// `bytes.toBase64()`: standard base64 with padding (HearthCore's encoder).
    static func base64(_ bytes: [UInt8]) -> String { HearthCore.base64(bytes) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
