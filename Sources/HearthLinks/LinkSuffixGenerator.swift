/// Draws short-link suffixes in base62 (`0-9 A-Z a-z`) from an injected source of random bits.
///
/// ```swift
/// let suffixes = LinkSuffixGenerator()              // system randomness
/// suffixes.unguessable()                            // "3fK9x0QbZ1aLmN2pQ" (17 characters)
/// suffixes.short(length: 4)                         // "aZ3k"
/// ```
public struct LinkSuffixGenerator: Sendable {
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    /// Length of an unguessable suffix: 62^17 > 2^96 > 62^16.
    public static let unguessableLength = 17
    /// Length of the first SHORT suffixes tried.
    public static let shortStartLength = 4

    private let random: @Sendable () -> UInt64

    /// - Parameter random: 64 uniformly random bits per call (default: the system generator).
    public init(random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) }) {
        self.random = random
    }

    /// 96 random bits written as 17 base62 digits (leading zeros kept).
    public func unguessable() -> String {
        let a = random(), b = random()
        return Self.base62(high: UInt32(truncatingIfNeeded: a >> 32), low: b)
    }

    /// `length` uniformly drawn base62 characters (rejection sampling, no modulo bias).
    public func short(length: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(length)
        var bits = random(), left = 10
        while out.count < length {
            if left == 0 { bits = random(); left = 10 }
            let six = Int(bits & 0x3F)
            bits >>= 6
            left -= 1
            if six < 62 { out.append(Self.alphabet[six]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 96-bit number `high << 64 | low` in base62, padded to 17 digits.
    static func base62(high: UInt32, low: UInt64) -> String {
        // Three 32-bit limbs, most significant first; long division by 62 one digit at a time.
        var limbs: [UInt64] = [UInt64(high), low >> 32, low & 0xFFFF_FFFF]
        var digits = [UInt8](repeating: alphabet[0], count: unguessableLength)
        var i = unguessableLength - 1
        while limbs.contains(where: { $0 != 0 }) && i >= 0 {
            var remainder: UInt64 = 0
            for j in limbs.indices {
                let value = remainder << 32 | limbs[j]
                limbs[j] = value / 62
                remainder = value % 62
            }
            digits[i] = alphabet[Int(remainder)]
            i -= 1
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// Whether `s` could be a suffix: 1-64 base62 characters (also `-` and `_`, which custom suffixes use).
    public static func isPlausible(_ s: Substring) -> Bool {
        !s.isEmpty && s.utf8.count <= 64
            && s.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }
}
