public import HearthCore

/// An order-preserving byte encoding of paths: comparing encodings bytewise gives Firebase key order,
/// depth-first, so one range scan returns a subtree in order.
///
/// Each key is a tagged, terminated segment. Integer-like keys: `0x01`, the value as 4 bytes
/// (sign-flipped big-endian), the text length (2 bytes), the text, `0x00`. Other keys: `0x02`, each UTF-16 code
/// unit as one byte when ASCII or three bytes (`0x80|…`) otherwise, then `0x00`. Every descendant of a
/// path starts with the path's encoding followed by `0x01` or `0x02`, so the subtree of `E` is the
/// range `[E, E + 0x03)`.
public enum PathEncoding {
    /// The encoding of `path`; the root is no bytes.
    public static func encode(_ path: Path) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.count * 12)
        for key in path.keys { append(key, to: &out) }
        return out
    }

    /// Appends the encoding of one key (a whole segment, terminator included).
    public static func append(_ key: Key, to out: inout [UInt8]) {
        if let v = key.intValue {
            out.append(0x01)
            let biased = UInt32(bitPattern: v) ^ 0x8000_0000
            out.append(UInt8(biased >> 24))
            out.append(UInt8(biased >> 16 & 0xFF))
            out.append(UInt8(biased >> 8 & 0xFF))
            out.append(UInt8(biased & 0xFF))
            let length = key.string.utf8.count  // ≤ 768 bytes: two bytes
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
            out.append(contentsOf: key.string.utf8)
        } else {
            out.append(0x02)
            appendUTF16(key.string, to: &out)
        }
        out.append(0x00)
    }

    /// Each UTF-16 code unit as one byte when ASCII, else three bytes `0x80|…`, so bytewise order is
    /// UTF-16 order and no byte is `0x00`.
    static func appendUTF16(_ s: String, to out: inout [UInt8]) {
        for u in s.utf16 {
            if u > 0, u < 0x80 {
                out.append(UInt8(u))
            } else {
                out.append(0x80 | UInt8(u >> 14))
                out.append(0x80 | UInt8(u >> 7 & 0x7F))
                out.append(0x80 | UInt8(u & 0x7F))
            }
        }
    }

    /// The encoding of one key.
    public static func encodeKey(_ key: Key) -> [UInt8] {
        var out: [UInt8] = []
        append(key, to: &out)
        return out
    }

    /// The exclusive upper bound of the subtree range of `encoded`.
    public static func subtreeEnd(_ encoded: [UInt8]) -> [UInt8] { encoded + [0x03] }

    /// Decodes the keys of an encoding, starting at byte `offset`.
    public static func decode(_ bytes: some Collection<UInt8>, from offset: Int = 0) -> [Key] {
        let b = Array(bytes)
        var keys: [Key] = []
        var i = offset
        while i < b.count {
            let tag = b[i]
            i += 1
            if tag == 0x01 {
                let length = Int(b[i + 4]) << 8 | Int(b[i + 5])
                i += 6
                keys.append(Key(String(decoding: b[i..<(i + length)], as: UTF8.self)))
                i += length + 1
            } else {
                var units: [UInt16] = []
                while b[i] != 0x00 {
                    if b[i] < 0x80 {
                        units.append(UInt16(b[i]))
                        i += 1
                    } else {
                        units.append(UInt16(b[i] & 0x7F) << 14 | UInt16(b[i + 1] & 0x7F) << 7 | UInt16(b[i + 2] & 0x7F))
                        i += 3
                    }
                }
                i += 1
                keys.append(Key(String(decoding: units, as: UTF16.self)))
            }
        }
        return keys
    }
}
