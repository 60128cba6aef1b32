import Crypto
import HearthFiles
import NIOCore
import Testing

@Suite("CRC-32C and MD5")
struct CRC32CTests {
    /// Values checked against google-crc32c and RFC 3720 §B.4.
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32, "AAAAAA=="),
        ("123456789", 0xE306_9283, "4waSgw=="),
        ("hello world", 0xC994_65AA, "yZRlqg=="),
        ("The quick brown fox jumps over the lazy dog", 0x2262_0404, "ImIEBA=="),
    ])
    func knownText(text: String, value: UInt32, base64: String) {
        #expect(CRC32C.checksum(Array(text.utf8)) == value)
        #expect(CRC32C.base64(value) == base64)
        #expect(CRC32C.value(base64: base64) == value)
    }

    @Test func rfc3720Vectors() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
        let readCommand: [UInt8] = [
            0x01, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
            0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        #expect(CRC32C.checksum(readCommand) == 0xD996_3A56)
    }

    /// Bit-at-a-time CRC-32C straight from the definition, to check the table-driven loop on
    /// every length and alignment.
    static func reference(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func matchesBitwiseReferenceOnEveryLengthAndOffset() {
        var random = SeededGenerator(seed: 1)
        let data = random.bytes(300)
        for start in 0..<17 {
            for end in start...data.count where (end - start) < 80 || end == data.count {
                #expect(CRC32C.checksum(data[start..<end]) == Self.reference(data[start..<end]))
            }
        }
    }

    /// Lengths around the thresholds of the three-way interleaved loop (3 KiB and 24 KiB
    /// rounds) and unaligned starts.
    @Test(arguments: [3071, 3072, 3073, 3087, 3088, 24_575, 24_576, 24_577, 49_167, 100_003])
    func interleavedLoopMatchesReference(length: Int) {
        var random = SeededGenerator(seed: UInt64(length))
        let data = random.bytes(length + 3)
        for start in 0..<3 {
            let slice = data[start..<(start + length)]
            #expect(CRC32C.checksum(slice) == Self.reference(slice))
        }
    }

    @Test func incrementalEqualsOneShot() {
        var random = SeededGenerator(seed: 2)
        for round in 0..<50 {
            let data = random.bytes(Int.random(in: 0...(round < 40 ? 5000 : 70_000), using: &random))
            var crc = CRC32C()
            var digester = BlobDigester()
            for piece in random.pieces(of: data.count, maxPiece: [40, 700, 30_000][round % 3]) {
                crc.update(data[piece])
                digester.update(ByteBuffer(bytes: data[piece]))
            }
            #expect(crc.value == CRC32C.checksum(data))
            #expect(crc.value == Self.reference(data))
            #expect(digester.digests.crc32c == crc.value)
            #expect(digester.digests.md5 == Array(Insecure.MD5.hash(data: data)))
            #expect(digester.size == Int64(data.count))
        }
    }

    @Test func nonContiguousSequencesAreAccepted() {
        let text = "123456789"
        var crc = CRC32C()
        crc.update(text.utf8.lazy.map { $0 })
        #expect(crc.value == 0xE306_9283)
    }

    @Test func combineEqualsChecksumOfConcatenation() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<40 {
            let a = random.bytes(Int.random(in: 0...300, using: &random))
            let b = random.bytes(Int.random(in: 0...300, using: &random))
            let combined = CRC32C.combine(
                CRC32C.checksum(a), CRC32C.checksum(b), lengthOfB: Int64(b.count))
            #expect(combined == CRC32C.checksum(a + b))
        }
    }

    @Test func base64DecodingRejectsOtherLengths() {
        #expect(CRC32C.value(base64: "AAAA") == nil)  // 3 bytes
        #expect(CRC32C.value(base64: "AAAAAAA=") == nil)  // 5 bytes
        #expect(CRC32C.value(base64: "not base64!") == nil)
        #expect(CRC32C.value(base64: "/////w==") == 0xFFFF_FFFF)
    }

    @Test(arguments: [
        ("", "1B2M2Y8AsgTpgAmY7PhCfg=="),
        ("hello world", "XrY7u+Ae7tCTyyK7j1rNww=="),
        ("The quick brown fox jumps over the lazy dog", "nhB9nTcrtoJr2B01QqQZ1g=="),
    ])
    func md5InGCSForm(text: String, expected: String) {
        var digester = BlobDigester()
        digester.update(ByteBuffer(string: text))
        #expect(digester.digests.md5Base64 == expected)
        #expect(BlobDigests.md5Base64(Insecure.MD5.hash(data: Array(text.utf8))) == expected)
    }

    @Test func emptyDigestsAndHashHeader() {
        #expect(BlobDigests.empty.size == 0)
        #expect(BlobDigests.empty.googHashHeader == "crc32c=AAAAAA==,md5=1B2M2Y8AsgTpgAmY7PhCfg==")
    }
}
