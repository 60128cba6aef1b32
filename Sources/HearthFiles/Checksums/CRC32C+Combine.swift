extension CRC32C {
    /// The checksum of `a` followed by `b`, knowing only both checksums and `b`'s length.
    ///
    /// GCS `compose` reports the checksum of the concatenation; this gives it without reading
    /// the parts again. Runs in O(log lengthOfB).
    public static func combine(_ crcA: UInt32, _ crcB: UInt32, lengthOfB: Int64) -> UInt32 {
        precondition(lengthOfB >= 0, "length must not be negative")
        // Appending n bytes to A multiplies its polynomial by x^(8n) (mod P); the initial and
        // final inversions cancel out, so the result is that product XOR crcB.
        return multiply(powerOfX(bytes: UInt64(lengthOfB)), crcA) ^ crcB
    }

    /// a(x) * b(x) mod P, both in reflected bit order (bit 31 is the x^0 coefficient).
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var product: UInt32 = 0
        var multiplicand = b
        var bit: UInt32 = 1 << 31
        while bit != 0 {
            if a & bit != 0 { product ^= multiplicand }
            // Multiply the multiplicand by x, reducing modulo P.
            multiplicand = multiplicand & 1 == 1 ? (multiplicand >> 1) ^ polynomial : multiplicand >> 1
            bit >>= 1
        }
        return product
    }

    /// x^(8 * bytes) mod P in reflected bit order, by repeated squaring.
    static func powerOfX(bytes: UInt64) -> UInt32 {
        var result: UInt32 = 1 << 31  // the polynomial 1
        var square: UInt32 = 1 << 23  // x^8: one byte
        var n = bytes
        while n != 0 {
            if n & 1 == 1 { result = multiply(square, result) }
            square = multiply(square, square)
            n >>= 1
        }
        return result
    }
}
