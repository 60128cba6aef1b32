import Crypto
import _CryptoExtras
import Foundation
import Synchronization

/// A password as stored: its scrypt hash and salt (base64), and the scrypt N it was made with.
public struct PasswordCredentials: Sendable, Hashable {
    /// The scrypt hash, base64.
    public var hash: String
    /// The random salt the hash was made with, base64.
    public var salt: String
    /// The scrypt N the hash was made with, so a later change of cost still checks it.
    public var cost: Int

    /// Credentials as stored (an export, an account record); ``PasswordHasher/hash(_:)`` makes new ones.
    public init(hash: String, salt: String, cost: Int) {
        self.hash = hash
        self.salt = salt
        self.cost = cost
    }
}

/// scrypt password hashes with a random salt per password; comparison in constant time.
///
/// Hashing is slow on purpose (~64 ms for N = 2^14 on this project's 2-core machine) and takes
/// 16 MB, so it runs on a few dedicated serial queues, one per core: never on the server's event
/// loops or the Swift concurrency pool, and never more hashes at once than cores.
///
/// Each hash is stored with its N, so a server whose cost is changed still checks the passwords
/// hashed before; ``needsRehash(cost:)`` tells sign-in to hash such a password again with the new cost.
public struct PasswordHasher: Sendable {
    /// scrypt cost (N) of new hashes. 2^14 with r = 8, p = 1 is the common interactive setting.
    public let rounds: Int
    /// scrypt's r, p and derived key length in bytes: fixed.
    public static let blockSize = 8
    /// scrypt's p: 1.
    public static let parallelism = 1
    /// The hash's length in bytes: 32.
    public static let keyLength = 32
    /// The N of every hash stored before hashes carried their own.
    public static let legacyCost = 1 << 14
    /// The N a stored hash may name: a power of two up to 2^18 (256 MiB per hash with r = 8), so
    /// a damaged record cannot make a check allocate without bound.
    public static func isUsableCost(_ n: Int) -> Bool {
        n >= 2 && n <= 1 << 18 && n & (n - 1) == 0
    }

    /// - Parameter rounds: a power of two up to 2^18 (``isUsableCost(_:)``): a hash made with
    ///   another N could never be checked.
    public init(rounds: Int = 1 << 14) {
        precondition(Self.isUsableCost(rounds), "scrypt N must be a power of two from 2 to 2^18, not \(rounds)")
        self.rounds = rounds
    }

    /// Hashes `password` with a fresh random salt at cost ``rounds``, on the hashing queues (it waits there, never
    /// blocking the caller's thread).
    public func hash(_ password: String) async throws -> PasswordCredentials {
        try await HashingQueues.shared.run { try self.hashNow(password) }
    }

    /// Counts the checks this hasher ran (tests).
    var checks: CheckCounter?

    /// Checks `password` against a stored hash made with N = `cost` (nil: ``legacyCost``).
    public func verify(_ password: String, hash: String, salt: String, cost: Int?) async -> Bool {
        let matched = (try? await HashingQueues.shared.run { self.verifyNow(password, hash: hash, salt: salt, cost: cost ?? Self.legacyCost) }) ?? false
        checks?.count.add(1, ordering: .relaxed)
        return matched
    }

    /// Whether a hash made with `cost` (nil: ``legacyCost``) should be replaced by one with ``rounds``.
    public func needsRehash(cost: Int?) -> Bool {
        (cost ?? Self.legacyCost) != rounds
    }

    func hashNow(_ password: String) throws -> PasswordCredentials {
        var rng = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return PasswordCredentials(
            hash: try Self.derive(password, salt: salt, cost: rounds).base64EncodedString(), salt: Data(salt).base64EncodedString(), cost: rounds)
    }

    func verifyNow(_ password: String, hash: String, salt: String, cost: Int) -> Bool {
        guard Self.isUsableCost(cost), let expected = Data(base64Encoded: hash), let saltBytes = Data(base64Encoded: salt),
            let actual = try? Self.derive(password, salt: Array(saltBytes), cost: cost)
        else { return false }
        return constantTimeEqual(Array(expected), Array(actual))
    }

    private static func derive(_ password: String, salt: [UInt8], cost: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: keyLength, rounds: cost, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }
}

/// How many password checks a hasher ran.
final class CheckCounter: Sendable {
    let count = Atomic(0)
}

/// Compares two byte strings without an early exit.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<a.count { diff |= a[i] ^ b[i] }
    return diff == 0
}

/// One serial queue per core for password hashing.
final class HashingQueues: Sendable {
    static let shared = HashingQueues(count: ProcessInfo.processInfo.activeProcessorCount)

    private let queues: [DispatchQueue]
    private let next = Mutex(0)

    init(count: Int) {
        queues = (0..<max(1, count)).map { DispatchQueue(label: "hearth.password-hashing.\($0)", qos: .userInitiated) }
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let queue = next.withLock { n in
            n = (n + 1) % queues.count
            return queues[n]
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Firebase's modified scrypt, for users imported from `firebase auth:export`: the project's
/// signer key encrypted (AES-256-CTR, zero IV) with a key derived by scrypt from the password and
/// the user's salt followed by the project's salt separator.
public struct FirebaseScryptParameters: Codable, Sendable, Hashable {
    /// Base64, from the project's password hash parameters.
    public var signerKey: String
    /// The project's salt separator, base64; appended to each user's salt.
    public var saltSeparator: String
    /// Firebase's `rounds`: scrypt's r (block size), 1-32 accepted.
    public var rounds: Int
    /// Firebase's `mem_cost`: scrypt's N is 2 to this power, 1-20 accepted.
    public var memoryCost: Int

    /// The four values of a Firebase project's password hash parameters (`firebase auth:export` prints them).
    public init(signerKey: String, saltSeparator: String, rounds: Int, memoryCost: Int) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    /// Whether `password` matches a Firebase hash (both base64) with these parameters.
    public func verify(_ password: String, hash: String, salt: String) async -> Bool {
        (try? await HashingQueues.shared.run { self.verifyNow(password, hash: hash, salt: salt) }) ?? false
    }

    func verifyNow(_ password: String, hash: String, salt: String) -> Bool {
        guard let expected = Data(base64Encoded: hash), let saltBytes = Data(base64Encoded: salt),
            let separator = Data(base64Encoded: saltSeparator), let signer = Data(base64Encoded: signerKey),
            (1...20).contains(memoryCost), (1...32).contains(rounds),
            let derived = try? KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: Array(saltBytes + separator), outputByteCount: 64,
                rounds: 1 << memoryCost, blockSize: rounds, parallelism: 1),
            let nonce = try? AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
        else { return false }
        let key = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
        guard let actual = try? AES._CTR.encrypt(signer, using: key, nonce: nonce) else { return false }
        return constantTimeEqual(Array(expected), Array(actual))
    }
}
