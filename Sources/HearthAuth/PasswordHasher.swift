import Crypto
import _CryptoExtras
import Foundation

/// scrypt password hashes with a random salt per password; comparison in constant time.
public struct PasswordHasher: Sendable {
    /// scrypt cost (N). 2^14 with r = 8, p = 1 is the common interactive setting.
    public var rounds: Int

    public init(rounds: Int = 1 << 14) {
        self.rounds = rounds
    }

    /// (hash, salt), both base64.
    public func hash(_ password: String) throws -> (hash: String, salt: String) {
        var rng = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return (try derive(password, salt: salt).base64EncodedString(), Data(salt).base64EncodedString())
    }

    public func verify(_ password: String, hash: String, salt: String) -> Bool {
        guard let expected = Data(base64Encoded: hash), let saltBytes = Data(base64Encoded: salt),
            let actual = try? derive(password, salt: Array(saltBytes))
        else { return false }
        return constantTimeEqual(Array(expected), Array(actual))
    }

    private func derive(_ password: String, salt: [UInt8]) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: 8, parallelism: 1)
        return key.withUnsafeBytes { Data($0) }
    }
}

/// Compares two byte strings without an early exit.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<a.count { diff |= a[i] ^ b[i] }
    return diff == 0
}
