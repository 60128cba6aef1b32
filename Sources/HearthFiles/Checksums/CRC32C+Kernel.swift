extension CRC32C {
    /// Stretch lengths for three-way interleaving, longest first, with the shifts that join
    /// the three results (`x^(8·length)` and `x^(16·length)` mod P), computed once.
    static let lanes: [(length: Int, shift1: UInt32, shift2: UInt32)] = [8192, 4096, 2048, 1024].map {
        ($0, powerOfX(bytes: UInt64($0)), powerOfX(bytes: UInt64(2 * $0)))
    }

    /// Advances the (inverted) register over `count` bytes.
    ///
    /// Large inputs are cut into rounds of three equal stretches A, B, C. A continues from the
    /// register, B and C start from zero, each on its own dependency chain; since the register
    /// update is linear, the register after A‖B‖C is `A·x^(8(|B|+|C|)) ⊕ B·x^(8|C|) ⊕ C` (mod P).
    static func advance(_ start: UInt32, _ base: UnsafeRawPointer, _ count: Int, _ t: UnsafePointer<UInt32>) -> UInt32 {
        var crc = start
        var p = base
        var n = count
        var level = 0
        while level < lanes.count {
            let (stretch, shift1, shift2) = lanes[level]
            guard n >= 3 * stretch else {
                level += 1
                continue
            }
            var a = crc
            var b: UInt32 = 0
            var c: UInt32 = 0
            var i = 0
            while i < stretch {
                a = step(a, p + i, t)
                b = step(b, p + stretch + i, t)
                c = step(c, p + 2 * stretch + i, t)
                i &+= 16
            }
            crc = multiply(shift2, a) ^ multiply(shift1, b) ^ c
            p += 3 * stretch
            n -= 3 * stretch
        }
        while n >= 16 {
            crc = step(crc, p, t)
            p += 16
            n &-= 16
        }
        while n > 0 {
            crc = (crc &>> 8) ^ t[Int(truncatingIfNeeded: (crc ^ UInt32(p.load(as: UInt8.self))) & 0xFF)]
            p += 1
            n &-= 1
        }
        return crc
    }

    /// Sixteen bytes in one step: table `k` accounts for a byte followed by `k` more bytes.
    @inline(__always)
    static func step(_ crc: UInt32, _ p: UnsafeRawPointer, _ t: UnsafePointer<UInt32>) -> UInt32 {
        let a = p.loadUnaligned(as: UInt64.self).littleEndian ^ UInt64(crc)
        let b = p.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
        return t[15 &* 256 &+ Int(truncatingIfNeeded: a & 0xFF)]
            ^ t[14 &* 256 &+ Int(truncatingIfNeeded: (a &>> 8) & 0xFF)]
            ^ t[13 &* 256 &+ Int(truncatingIfNeeded: (a &>> 16) & 0xFF)]
            ^ t[12 &* 256 &+ Int(truncatingIfNeeded: (a &>> 24) & 0xFF)]
            ^ t[11 &* 256 &+ Int(truncatingIfNeeded: (a &>> 32) & 0xFF)]
            ^ t[10 &* 256 &+ Int(truncatingIfNeeded: (a &>> 40) & 0xFF)]
            ^ t[9 &* 256 &+ Int(truncatingIfNeeded: (a &>> 48) & 0xFF)]
            ^ t[8 &* 256 &+ Int(truncatingIfNeeded: a &>> 56)]
            ^ t[7 &* 256 &+ Int(truncatingIfNeeded: b & 0xFF)]
            ^ t[6 &* 256 &+ Int(truncatingIfNeeded: (b &>> 8) & 0xFF)]
            ^ t[5 &* 256 &+ Int(truncatingIfNeeded: (b &>> 16) & 0xFF)]
            ^ t[4 &* 256 &+ Int(truncatingIfNeeded: (b &>> 24) & 0xFF)]
            ^ t[3 &* 256 &+ Int(truncatingIfNeeded: (b &>> 32) & 0xFF)]
            ^ t[2 &* 256 &+ Int(truncatingIfNeeded: (b &>> 40) & 0xFF)]
            ^ t[1 &* 256 &+ Int(truncatingIfNeeded: (b &>> 48) & 0xFF)]
            ^ t[Int(truncatingIfNeeded: b &>> 56)]
    }
}
