import Foundation
import Crypto
import _CryptoExtras
public import HearthCore

/// The RS256 key that signs ID tokens, created on first start and kept (mode 0600) in the data
/// folder. Its public half is published as a JWKS so any backend can verify Hearth's tokens.
public struct SigningKey: Sendable {
    let privateKey: _RSA.Signing.PrivateKey
    /// Built once: deriving it from the private key on every check was a third of a verification.
    let publicKey: _RSA.Signing.PublicKey
    /// Key id: the first 20 base64url characters of the SHA-256 of the public key's DER.
    public let kid: String
    #if os(Linux)
    /// The same key in the system's OpenSSL, which signs about twice as fast here (see `SystemRSASigner`).
    let systemSigner: SystemRSASigner
    #endif

    /// Wraps an RSA private key that signs RS256; ``kid`` is derived from its public key.
    public init(privateKey: _RSA.Signing.PrivateKey) {
        self.privateKey = privateKey
        publicKey = privateKey.publicKey
        #if os(Linux)
        systemSigner = SystemRSASigner(der: Array(privateKey.derRepresentation))
        #endif
        kid = String(Base64URL.encode(Array(SHA256.hash(data: privateKey.publicKey.derRepresentation))).prefix(20))
    }

    /// A new 2048-bit key (for tests).
    public static func generate() throws -> SigningKey {
        SigningKey(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// Loads the existing key at `path`.
    static func load(at path: String) throws -> SigningKey {
        guard let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        return SigningKey(privateKey: try _RSA.Signing.PrivateKey(pemRepresentation: pem))
    }

    /// Loads the key at `path`, creating it (readable by the owner only) if it does not exist.
    public static func loadOrCreate(at path: String) throws -> SigningKey {
        if let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8) {
            return SigningKey(privateKey: try _RSA.Signing.PrivateKey(pemRepresentation: pem))
        }
        let key = try generate()
        // Written aside and renamed into place, so a crash mid-write never leaves a truncated key
        // that the next start would refuse (the key folder only reads `*.pem`); 0600 from its first byte.
        try OwnerOnlyFile.save(Array(key.privateKey.pemRepresentation.utf8), to: path)
        return key
    }

    /// A compact JWS: header.payload.signature.
    public func sign(_ payload: JSONValue) throws -> String {
        let header = JSONValue.object([
            JSONMember("alg", .string("RS256")), JSONMember("kid", .string(kid)), JSONMember("typ", .string("JWT")),
        ])
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(payload.jsonBytes)
        return input + "." + Base64URL.encode(try signature(Array(input.utf8)))
    }

    /// The RS256 signature of `input`: OpenSSL's where available, otherwise swift-crypto's (the same bytes).
    func signature(_ input: [UInt8]) throws -> [UInt8] {
        #if os(Linux)
        if let signature = systemSigner.sign(input) { return signature }
        #endif
        return try portableSignature(input)
    }

    /// The RS256 signature of `input` through swift-crypto (BoringSSL).
    func portableSignature(_ input: [UInt8]) throws -> [UInt8] {
        Array(try privateKey.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    /// Checks an RS256 token's signature against this key; returns the payload, or nil if the token
    /// is not one this key signed.
    public func verifiedPayload(_ token: String) -> JSONValue? {
        // Split on the UTF-8 bytes: splitting a ~900-character token by Character was half the cost.
        let bytes = Array(token.utf8)
        guard let first = bytes.firstIndex(of: 0x2E), let second = bytes[(first + 1)...].firstIndex(of: 0x2E),
            bytes[(second + 1)...].firstIndex(of: 0x2E) == nil,
            let headerBytes = Base64URL.decode(bytes: bytes[..<first]), let header = try? JSONValue.parse(headerBytes),
            header["alg"]?.stringValue == "RS256", header["kid"]?.stringValue == kid,
            let signature = Base64URL.decode(bytes: bytes[(second + 1)...]), let payloadBytes = Base64URL.decode(bytes: bytes[(first + 1)..<second])
        else { return nil }
        guard publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: bytes[..<second]), padding: .insecurePKCS1v1_5)
        else { return nil }
        return try? JSONValue.parse(payloadBytes)
    }

    /// `{"keys": [{kty, alg, use, kid, n, e}]}`.
    public var jwks: JSONValue {
        let primitives = try? publicKey.getKeyPrimitives()
        return .object([
            JSONMember("keys", .array([.object([
                JSONMember("kty", .string("RSA")), JSONMember("alg", .string("RS256")), JSONMember("use", .string("sig")),
                JSONMember("kid", .string(kid)),
                JSONMember("n", .string(Base64URL.encode(Array(primitives?.modulus ?? Data())))),
                JSONMember("e", .string(Base64URL.encode(Array(primitives?.publicExponent ?? Data())))),
            ])])),
        ])
    }
}

/// Base64url without padding, as JWTs use.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Writes straight into the string's storage: an ID token encodes ~700 bytes, and appending four-byte arrays was
    /// ~4 % of a token refresh apart from the signature.
    public static func encode(_ bytes: [UInt8]) -> String {
        let length = bytes.count / 3 * 4 + [0, 2, 3][bytes.count % 3]
        guard length > 0 else { return "" }
        return bytes.withUnsafeBufferPointer { input in
            alphabet.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0
                    var o = 0
                    while i + 2 < input.count {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = table[Int(v >> 18 & 63)]
                        out[o + 1] = table[Int(v >> 12 & 63)]
                        out[o + 2] = table[Int(v >> 6 & 63)]
                        out[o + 3] = table[Int(v & 63)]
                        i += 3
                        o += 4
                    }
                    if input.count - i >= 1 {
                        let v = UInt32(input[i]) << 16 | (input.count - i == 2 ? UInt32(input[i + 1]) << 8 : 0)
                        out[o] = table[Int(v >> 18 & 63)]
                        out[o + 1] = table[Int(v >> 12 & 63)]
                        o += 2
                        if input.count - i == 2 {
                            out[o] = table[Int(v >> 6 & 63)]
                            o += 1
                        }
                    }
                    return o
                }
            }
        }
    }

    /// Decodes base64url (standard base64 characters and padding tolerated); nil on other input.
    public static func decode(_ s: some StringProtocol) -> [UInt8]? {
        decode(bytes: Array(s.utf8)[...])
    }

    /// Decodes base64url bytes, like ``decode(_:)``; nil on other input.
    public static func decode(bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in bytes {
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
