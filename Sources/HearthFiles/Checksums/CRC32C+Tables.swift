extension CRC32C {
    /// The reflected Castagnoli polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    /// Sixteen lookup tables of 256 entries, laid out one after another.
    ///
    /// `tables[0]` is the classic byte-at-a-time table; table `k` gives the effect of a byte
    /// followed by `k` zero bytes, which lets the core loop fold sixteen bytes independently.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 16 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
            }
            t[byte] = crc
        }
        for table in 1..<16 {
            for byte in 0..<256 {
                let previous = t[(table - 1) * 256 + byte]
                t[table * 256 + byte] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return t
    }()
}
