import Foundation

/// MD5 (RFC 1321), only to check uploads and downloads against the `md5Hash` Firebase Storage
/// reports, never for security. Written here because the SDK depends on Foundation alone and
/// Foundation has no MD5 on Linux.
struct MD5 {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) * 2^32).
    private static let constants: [UInt32] = (0..<64).map { i in UInt32(truncatingIfNeeded: Int64(abs(sin(Double(i + 1))) * 4_294_967_296)) }

    mutating func update(_ data: some Collection<UInt8>) {
        length &+= UInt64(data.count)
        buffer.append(contentsOf: data)
        var start = 0
        while buffer.count - start >= 64 {
            buffer.withUnsafeBufferPointer { process(UnsafeBufferPointer(rebasing: $0[start..<start + 64])) }
            start += 64
        }
        if start > 0 { buffer.removeFirst(start) }
    }

    mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (56 - (Int(length % 64) + 1) % 64 + 64) % 64
        tail += [UInt8](repeating: 0, count: padding)
        for i in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        update(tail)
        var out: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3] {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) }
        }
        return out
    }

    private mutating func process(_ block: UnsafeBufferPointer<UInt8>) {
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { m in
            for i in 0..<16 {
                m[i] = UInt32(block[i * 4]) | UInt32(block[i * 4 + 1]) << 8 | UInt32(block[i * 4 + 2]) << 16 | UInt32(block[i * 4 + 3]) << 24
            }
            var (a, b, c, d) = state
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: (f, g) = ((b & c) | (~b & d), i)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
                }
                f = f &+ a &+ Self.constants[i] &+ m[g]
                a = d
                d = c
                c = b
                b = b &+ (f << Self.shifts[i] | f >> (32 - Self.shifts[i]))
            }
            return (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
    }

    /// base64(MD5(data)), the form of `md5Hash`.
    static func base64(_ data: Data) -> String {
        var md5 = MD5()
        md5.update(data)
        return Data(md5.finalize()).base64EncodedString()
    }
}
