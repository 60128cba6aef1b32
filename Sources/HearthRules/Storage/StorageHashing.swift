/// The digests behind `hashing.crc32/crc32c/md5/sha256` and the encodings of `bytes`, in plain
/// Swift (HearthRules depends on HearthCore only).
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

    /// Message padding shared by MD5 (little-endian length) and SHA-256 (big-endian length).
    static func padded(_ bytes: [UInt8], bigEndianLength: Bool) -> [UInt8] {
        var m = bytes
        let bitLength = UInt64(bytes.count) &* 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for i in 0..<8 {
            let shift = bigEndianLength ? UInt64(56 - 8 * i) : UInt64(8 * i)
            m.append(UInt8(truncatingIfNeeded: bitLength >> shift))
        }
        return m
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

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
