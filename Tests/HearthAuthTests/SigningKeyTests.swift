import Foundation
import HearthCore
import Testing
import _CryptoExtras

@testable import HearthAuth

@Suite("Signing key")
struct SigningKeyTests {
    static let key = try! SigningKey.generate()

    @Test("signatures are the RS256 bytes swift-crypto computes, for inputs of several lengths")
    func signaturesMatchSwiftCrypto() throws {
        for length in [0, 1, 55, 64, 1_000, 70_000] {
            let input = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let signature = try Self.key.signature(input)
            #expect(signature.count == 256)
            // PKCS#1 v1.5 is deterministic: whichever library signed, the bytes must be identical.
            #expect(signature == (try Self.key.portableSignature(input)), "input of \(length) bytes")
        }
    }

    @Test("a signed token verifies, and a token with one signature bit flipped does not")
    func signedTokensVerify() throws {
        let token = try Self.key.sign(.object([JSONMember("sub", .string("u1")), JSONMember("n", .int(7))]))
        let payload = try #require(Self.key.verifiedPayload(token))
        #expect(payload["sub"]?.stringValue == "u1")
        var bytes = Array(token.utf8)
        let dot = try #require(bytes.lastIndex(of: 0x2E))
        bytes[dot + 5] = bytes[dot + 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(Self.key.verifiedPayload(String(decoding: bytes, as: UTF8.self)) == nil)
    }

    #if os(Linux)
    @Test("on Linux the system's OpenSSL reads the key and does the signing; a key it cannot read falls back")
    func systemSignerIsUsed() throws {
        // Debian and Ubuntu ship libcrypto.so.3 in every base image (libssl3); without it this test must fail loudly
        // rather than pass on the fallback.
        #expect(LibCrypto.shared != nil)
        let signer = Self.key.systemSigner
        let input = Array("header.payload".utf8)
        #expect(signer.sign(input) == (try Self.key.portableSignature(input)))
        #expect(signer.isAvailable)
        let unreadable = SystemRSASigner(der: [0x30, 0x03, 0x02, 0x01, 0x00])
        #expect(unreadable.sign(input) == nil)
        #expect(!unreadable.isAvailable)
    }
    #endif

    @Test("base64url encodes as Foundation's base64 with the URL alphabet and no padding, and decodes back")
    func base64URLMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == expected, "length \(length)")
            #expect(Base64URL.decode(encoded) == bytes, "length \(length)")
        }
    }
}
