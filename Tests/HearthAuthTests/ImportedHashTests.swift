import Foundation
import HearthAuth
import Testing

/// Hashes made by other systems, checked against published vectors (OpenBSD's bcrypt suite,
/// RFC 7914 for PBKDF2-HMAC-SHA256 and scrypt) and values from Python's hashlib.
@Suite("Imported password hashes")
struct ImportedHashTests {
    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
    static func base64(hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }

    @Test("bcrypt ($2a$ and $2b$) through libxcrypt")
    func bcrypt() async throws {
        let hash = try ImportedHash.validated(.bcrypt, rounds: nil, memoryCost: nil, blockSize: nil, parallelization: nil, derivedKeyLength: nil)
        let vectors = [
            ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
            ("U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"),
            ("U*U*U", "$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"),
        ]
        for (password, stored) in vectors {
            #expect(hash.accepts(hash: Self.base64(stored)))
            #expect(await hash.verify(password, hash: Self.base64(stored), salt: ""), "\(stored)")
            #expect(await !hash.verify(password + "x", hash: Self.base64(stored), salt: ""), "\(stored)")
        }
        // $2b$ is the same computation for passwords under 256 bytes.
        let b = "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(await hash.verify("U*U", hash: Self.base64(b), salt: ""))
        // bcrypt reads 72 bytes: a longer password matches on its first 72 (libxcrypt alone
        // would refuse 512 bytes and more).
        // 72 × "a", hashed by pyca/bcrypt (and libxcrypt: the same text).
        let long = Self.base64("$2b$04$CCCCCCCCCCCCCCCCCCCCC.mDyzbhj.9K0apb9O/AGMWwoLXiYAu6u")
        #expect(await hash.verify(String(repeating: "a", count: 600), hash: long, salt: ""))
        #expect(await !hash.verify(String(repeating: "a", count: 71), hash: long, salt: ""))
        #expect(!hash.accepts(hash: Self.base64("$2a$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")), "cost 15 is over the cap")
        // Not bcrypt at all: refused at import, never a match.
        for junk in ["$1$abc$def", "$2a$05$short", String(repeating: "x", count: 60)] {
            #expect(!hash.accepts(hash: Self.base64(junk)), "\(junk)")
            #expect(await !hash.verify("U*U", hash: Self.base64(junk), salt: ""), "\(junk)")
        }
    }

    @Test("PBKDF2 with SHA-256 and SHA-1")
    func pbkdf2() async throws {
        let sha256 = try ImportedHash.validated(.pbkdf2SHA256, rounds: 1, memoryCost: nil, blockSize: nil, parallelization: nil, derivedKeyLength: nil)
        // RFC 7914 §11: P = "passwd", S = "salt", c = 1, dkLen = 64.
        let rfc = Self.base64(hex: "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        #expect(await sha256.verify("passwd", hash: rfc, salt: Self.base64("salt")))
        #expect(await !sha256.verify("passwd", hash: rfc, salt: Self.base64("pepper")))

        let thousand = try ImportedHash.validated(.pbkdf2SHA256, rounds: 1000, memoryCost: nil, blockSize: nil, parallelization: nil, derivedKeyLength: nil)
        #expect(await thousand.verify("correct horse", hash: "8GgLOauGHBHN5T42RKUyaja0mZxgcCvctsjbYuP7E8Y=", salt: Self.base64("NaCl-salt")))
        let sha1 = try ImportedHash.validated(.pbkdfSHA1, rounds: 1000, memoryCost: nil, blockSize: nil, parallelization: nil, derivedKeyLength: nil)
        #expect(await sha1.verify("correct horse", hash: "PcNuGa8v8cY1Pucao23czMYZVc8=", salt: Self.base64("NaCl-salt")))
        #expect(await !sha1.verify("correct horse", hash: "8GgLOauGHBHN5T42RKUyaja0mZxgcCvctsjbYuP7E8Y=", salt: Self.base64("NaCl-salt")))

        #expect(throws: AuthError.self) {
            try ImportedHash.validated(.pbkdf2SHA256, rounds: 0, memoryCost: nil, blockSize: nil, parallelization: nil, derivedKeyLength: nil)
        }
    }

    @Test("standard scrypt with its own N, r, p and length")
    func standardScrypt() async throws {
        // RFC 7914 §12: P = "password", S = "NaCl", N = 1024, r = 8, p = 16, dkLen = 64.
        let scrypt = try ImportedHash.validated(.standardScrypt, rounds: nil, memoryCost: 1024, blockSize: 8, parallelization: 16, derivedKeyLength: 64)
        let rfc = "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA=="
        #expect(scrypt.accepts(hash: rfc))
        #expect(await scrypt.verify("password", hash: rfc, salt: Self.base64("NaCl")))
        #expect(await !scrypt.verify("Password", hash: rfc, salt: Self.base64("NaCl")))
        let shorter = try ImportedHash.validated(.standardScrypt, rounds: nil, memoryCost: 1024, blockSize: 8, parallelization: 16, derivedKeyLength: 32)
        #expect(!shorter.accepts(hash: rfc), "a 64-byte hash is not a 32-byte scrypt output")
        // Over 256 MiB per attempt, or not computable at all (r = 1 needs N < 2^16; r = 32 with
        // p = 1 needs more room than swift-crypto grants).
        for (n, r, p, length) in [(1000, 8, 1, 64), (1024, 0, 1, 64), (1024, 8, 0, 64), (1024, 8, 1, 8), (1 << 20, 32, 16, 64),
                                  (1 << 16, 1, 1, 64), (16, 32, 1, 64)] {
            #expect(throws: AuthError.self, "\(n) \(r) \(p) \(length)") {
                try ImportedHash.validated(
                    .standardScrypt, rounds: nil, memoryCost: Int64(n), blockSize: Int64(r), parallelization: Int64(p), derivedKeyLength: Int64(length))
            }
        }
    }
}
