#if canImport(CCrypt)
import CCrypt
#endif
import Crypto
import Foundation
import _CryptoExtras

/// A password hash made by another system, kept as imported until the user's first successful
/// sign-in replaces it with Hearth's own (as `FirebaseScryptParameters` does for Firebase's).
///
/// These are the algorithms of Firebase's user import that need nothing beyond the hash, the
/// salt and numeric parameters: bcrypt (what Vapor and Spring Security store), standard scrypt
/// and PBKDF2. The HMAC and plain digest families are refused at import: how Firebase joins
/// their salt and password is not documented well enough to check them reliably.
public struct ImportedHash: Codable, Sendable, Hashable {
    /// The hash formats an import may bring, named as Firebase's user import names them.
    public enum Algorithm: String, Codable, Sendable, CaseIterable {
        /// bcrypt (`$2a$`, `$2b$` or `$2y$` text); needs the system's libxcrypt (`CCrypt`), refused at import without it.
        case bcrypt = "BCRYPT"
        /// scrypt as published (N, r, p, key length), not Firebase's modified one (see ``FirebaseScryptParameters``).
        case standardScrypt = "STANDARD_SCRYPT"
        /// PBKDF2 with HMAC-SHA-256, ``ImportedHash/rounds`` iterations.
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        /// PBKDF2 with HMAC-SHA-1, ``ImportedHash/rounds`` iterations (Firebase's name for it has no `2`).
        case pbkdfSHA1 = "PBKDF_SHA1"
    }

    /// Which format the stored hash is in.
    public var algorithm: Algorithm
    /// PBKDF2 iterations.
    public var rounds: Int?
    /// Standard scrypt's N (a power of two up to 2^20).
    public var memoryCost: Int?
    /// Standard scrypt's r (1-32).
    public var blockSize: Int?
    /// Standard scrypt's p (1-16).
    public var parallelization: Int?
    /// Standard scrypt's derived key length in bytes (16-128).
    public var derivedKeyLength: Int?

    /// Parameters as stored; use ``validated(_:rounds:memoryCost:blockSize:parallelization:derivedKeyLength:)`` for
    /// what an import request gives, which checks ranges.
    public init(
        algorithm: Algorithm, rounds: Int? = nil, memoryCost: Int? = nil, blockSize: Int? = nil, parallelization: Int? = nil,
        derivedKeyLength: Int? = nil
    ) {
        self.algorithm = algorithm
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.blockSize = blockSize
        self.parallelization = parallelization
        self.derivedKeyLength = derivedKeyLength
    }

    /// Checks the parameters an import request gives for `algorithm`; the error says which is wrong.
    public static func validated(_ algorithm: Algorithm, rounds: Int64?, memoryCost: Int64?, blockSize: Int64?, parallelization: Int64?,
        derivedKeyLength: Int64?) throws -> ImportedHash
    {
        switch algorithm {
        case .bcrypt:
            #if canImport(CCrypt)
            return ImportedHash(algorithm: .bcrypt)
            #else
            throw AuthError("INVALID_HASH_ALGORITHM", "BCRYPT needs the system's libxcrypt, which this platform lacks")
            #endif
        case .pbkdf2SHA256, .pbkdfSHA1:
            // Firebase accepts 0-120000; at least one iteration is needed to compute anything.
            guard let rounds, (1...120_000).contains(rounds) else {
                throw AuthError("INVALID_HASH_ROUNDS", "\(algorithm.rawValue) rounds must be 1-120000")
            }
            return ImportedHash(algorithm: algorithm, rounds: Int(rounds))
        case .standardScrypt:
            guard let n = memoryCost, n > 1, n <= 1 << 20, n & (n - 1) == 0 else {
                throw AuthError("INVALID_HASH_MEMORY_COST", "STANDARD_SCRYPT memoryCost (N) must be a power of two up to 2^20")
            }
            guard let r = blockSize, (1...32).contains(r) else { throw AuthError("INVALID_HASH_BLOCK_SIZE", "STANDARD_SCRYPT blockSize must be 1-32") }
            guard let p = parallelization, (1...16).contains(p) else {
                throw AuthError("INVALID_HASH_PARALLELIZATION", "STANDARD_SCRYPT parallelization must be 1-16")
            }
            guard let length = derivedKeyLength, (16...128).contains(length) else {
                throw AuthError("INVALID_HASH_DERIVED_KEY_LENGTH", "STANDARD_SCRYPT dkLen must be 16-128")
            }
            // Every sign-in attempt pays this, so it is bounded: 128·N·r·p bytes of work memory at
            // most 256 MiB (Hearth's own hash uses 16 MiB).
            guard n * r * p <= Self.maxScryptWork else {
                throw AuthError("INVALID_HASH_MEMORY_COST", "STANDARD_SCRYPT with N·r·p over 2^21 (256 MiB per sign-in) is not accepted")
            }
            let hash = ImportedHash(
                algorithm: .standardScrypt, memoryCost: Int(n), blockSize: Int(r), parallelization: Int(p), derivedKeyLength: Int(length))
            // Some combinations pass every range and still cannot be computed (BoringSSL wants
            // N < 2^(16·r), and room for r·(N+p+1) blocks): try once, so such an import is refused
            // instead of storing users who could never sign in.
            guard hash.derive(Array("probe".utf8), salt: [0], count: Int(length)) != nil else {
                throw AuthError("INVALID_HASH_BLOCK_SIZE", "these STANDARD_SCRYPT parameters cannot be computed; check N, r and p")
            }
            return hash
        }
    }

    static let maxScryptWork: Int64 = 1 << 21
    /// bcrypt costs above this take seconds per sign-in attempt; Vapor and Spring default to 12 and 10.
    static let maxBcryptCost = 14

    /// Whether a stored `hash` (base64) fits this algorithm at all, so an import can refuse it
    /// per user instead of storing a hash nobody could ever sign in with.
    public func accepts(hash: String) -> Bool {
        guard let bytes = Data(base64Encoded: hash), !bytes.isEmpty else { return false }
        switch algorithm {
        case .bcrypt:
            guard Self.isBcrypt(bytes), let cost = Int(String(decoding: bytes[bytes.startIndex + 4..<bytes.startIndex + 6], as: UTF8.self)) else {
                return false
            }
            return (4...Self.maxBcryptCost).contains(cost)
        case .standardScrypt: return bytes.count == derivedKeyLength
        case .pbkdf2SHA256, .pbkdfSHA1: return (16...64).contains(bytes.count)
        }
    }

    /// `$2a$`, `$2b$` or `$2y$`, two cost digits, `$`, 53 characters of bcrypt's base64.
    static func isBcrypt(_ bytes: Data) -> Bool {
        let text = Array(bytes)
        guard text.count == 60, text[0] == UInt8(ascii: "$"), text[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(text[2]), text[3] == UInt8(ascii: "$"),
            text[6] == UInt8(ascii: "$"), text[4...5].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return text[7...].allSatisfy(alphabet.contains)
    }

    /// Whether `password` matches `hash` and `salt` (both base64), on the hashing queues.
    public func verify(_ password: String, hash: String, salt: String) async -> Bool {
        (try? await HashingQueues.shared.run { self.verifyNow(password, hash: hash, salt: salt) }) ?? false
    }

    func verifyNow(_ password: String, hash: String, salt: String) -> Bool {
        guard let expected = Data(base64Encoded: hash) else { return false }
        let saltBytes = Data(base64Encoded: salt) ?? Data()
        let actual: [UInt8]?
        switch algorithm {
        case .bcrypt:
            actual = Self.bcrypt(password, setting: expected)
        case .standardScrypt:
            actual = derive(Array(password.utf8), salt: Array(saltBytes), count: expected.count)
        case .pbkdf2SHA256, .pbkdfSHA1:
            actual = try? KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: Array(saltBytes), using: algorithm == .pbkdf2SHA256 ? .sha256 : .insecureSHA1,
                outputByteCount: expected.count, unsafeUncheckedRounds: rounds ?? 0
            ).withUnsafeBytes { Array($0) }
        }
        guard let actual else { return false }
        return constantTimeEqual(Array(expected), actual)
    }

    /// Standard scrypt with these parameters; nil if they cannot be computed.
    func derive(_ password: [UInt8], salt: [UInt8], count: Int) -> [UInt8]? {
        guard let n = memoryCost, let r = blockSize, let p = parallelization, Int64(n) * Int64(r) * Int64(p) <= Self.maxScryptWork else { return nil }
        return try? KDF.Scrypt.deriveKey(from: password, salt: salt, outputByteCount: count, rounds: n, blockSize: r, parallelism: p)
            .withUnsafeBytes { Array($0) }
    }

    /// bcrypt of `password` with the salt and cost of `setting` (a whole stored hash), through
    /// the system's libxcrypt; nil if libxcrypt refuses the setting. bcrypt reads at most 72
    /// bytes of the password, as every implementation does.
    static func bcrypt(_ password: String, setting: Data) -> [UInt8]? {
        #if canImport(CCrypt)
        guard isBcrypt(setting), !password.utf8.contains(0) else { return nil }
        // bcrypt reads 72 bytes; libxcrypt refuses passphrases of 512 bytes or more outright, so
        // cut first (byte-wise, as the hash was made).
        let key = Array(password.utf8.prefix(72)).map { CChar(bitPattern: $0) } + [0]
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            // The buffer held the password's key schedule.
            UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        let settingText = String(decoding: setting, as: UTF8.self)
        guard let result = crypt_r(key, settingText, data) else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(result).assumingMemoryBound(to: UInt8.self), count: strlen(result)))
        // libxcrypt answers a refused setting with a string starting with `*`.
        return bytes.first == UInt8(ascii: "$") ? bytes : nil
        #else
        return nil
        #endif
    }
}
