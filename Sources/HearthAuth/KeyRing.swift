import Dispatch
import Foundation
public import HearthCore
import Synchronization

/// The signing keys of a project: the newest signs, every key still in the ring verifies.
///
/// Keys live in `<data>/auth-keys/<created-ms>.pem` (mode 0600). `rotate(in:)` adds a key; a ring
/// loaded from the folder notices it within a second and signs with it from then on (so every node
/// sharing the folder does, without a restart). A replaced key stays for 15 days after its successor appeared
/// (the longest session cookie is 14 days; ID tokens live an hour), then it is removed at start.
///
/// On a first start the folder is empty and a key must be created: 60–170 ms of RSA key generation
/// here, most of the server's start-up time. `load(folder:creatingInBackground:)` can create it on
/// another thread instead; until it exists, signing and the public-key documents wait for it, and
/// verification answers "not signed by this ring" (nothing can have been signed by a key that does
/// not exist yet).
public struct KeyRing: Sendable {
    private let slot: Slot

    /// A ring of keys already in memory (tests, tools): `current` signs, `current` and `older` verify.
    public init(current: SigningKey, older: [SigningKey] = []) {
        slot = Slot(ready: [current] + older)
    }

    private init(slot: Slot) {
        self.slot = slot
    }

    /// The key that signs: the newest. Waits for it while it is being created; throws if creating it failed.
    public var current: SigningKey {
        get throws {
            slot.refreshIfDue()
            return try slot.waitForKeys()[0]
        }
    }

    /// Every key that verifies, newest first; empty while the first key is still being created.
    public var all: [SigningKey] {
        slot.refreshIfDue()
        return slot.keysIfReady ?? []
    }

    /// Returns once the keys exist (at once unless the first key is still being created); throws if creating it failed.
    public func waitUntilReady() async throws {
        try await slot.ready()
    }

    static let retention: Int64 = 15 * 24 * 3600 * 1000

    /// Loads the keys in `folder`, creating the first one if there is none, and prunes keys whose
    /// successor is older than the retention. With `creatingInBackground`, a missing first key is
    /// created on another thread and this returns at once.
    public static func load(
        folder: String, creatingInBackground: Bool = false, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws -> KeyRing {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var files = try stamps(in: folder)
        if files.isEmpty {
            if creatingInBackground {
                let slot = Slot(creating: { [try SigningKey.loadOrCreate(at: "\(folder)/\(now).pem")] }, folder: folder, stamps: [now])
                return KeyRing(slot: slot)
            }
            _ = try rotate(in: folder, now: now)
            files = try stamps(in: folder)
        }
        // Newest first.
        files.sort { $0 > $1 }
        var keys: [SigningKey] = []
        for (i, stamp) in files.enumerated() {
            let path = "\(folder)/\(stamp).pem"
            if i > 0, now - files[i - 1] > retention {
                try? FileManager.default.removeItem(atPath: path)
                continue
            }
            keys.append(try SigningKey.loadOrCreate(at: path))
        }
        return KeyRing(slot: Slot(ready: keys, folder: folder, stamps: Set(files)))
    }

    /// Adds a new signing key to `folder`; returns its kid.
    public static func rotate(in folder: String, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let latest = try stamps(in: folder).max() ?? 0
        return try SigningKey.loadOrCreate(at: "\(folder)/\(max(now, latest + 1)).pem").kid
    }

    static func stamps(in folder: String) throws -> [Int64] {
        try FileManager.default.contentsOfDirectory(atPath: folder).compactMap { name in
            name.hasSuffix(".pem") ? Int64(name.dropLast(4)) : nil
        }
    }

    /// The payload of a token signed by any key of the ring, or nil.
    public func verifiedPayload(_ token: String) -> JSONValue? {
        for key in all {
            if let payload = key.verifiedPayload(token) { return payload }
        }
        return nil
    }

    /// Every public key, for `/.well-known/jwks.json`. Waits for the first key while it is being created.
    public var jwks: JSONValue {
        get throws {
            slot.refreshIfDue()
            return .object([JSONMember("keys", .array(try slot.waitForKeys().compactMap { $0.jwks["keys"]?[first: ()] }))])
        }
    }

    /// The keys, or the work that creates the first of them.
    private final class Slot: Sendable {
        private let keys: Mutex<Result<[SigningKey], any Error>?>
        /// Entered while the first key is being created.
        private let creation = DispatchGroup()
        /// The folder the keys were loaded from, if any: looked at again at most once a second.
        private let folder: String?
        /// When the folder was last looked at (monotonic nanoseconds), and the key files loaded so far.
        private let seen: Mutex<(checkedAt: UInt64, stamps: Set<Int64>)>

        init(ready: [SigningKey], folder: String? = nil, stamps: Set<Int64> = []) {
            keys = Mutex(.success(ready))
            self.folder = folder
            seen = Mutex((DispatchTime.now().uptimeNanoseconds, stamps))
        }

        init(creating create: @escaping @Sendable () throws -> [SigningKey], folder: String? = nil, stamps: Set<Int64> = []) {
            self.folder = folder
            seen = Mutex((DispatchTime.now().uptimeNanoseconds, stamps))
            keys = Mutex(nil)
            creation.enter()
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let result = Result { try create() }
                keys.withLock { $0 = result }
                creation.leave()
            }
        }

        /// Loads key files another process added to the folder since it was last looked at (at most once a
        /// second): a newer one signs from now on, every one verifies. A file that does not load yet (still
        /// being written) is tried again at the next look.
        func refreshIfDue() {
            guard let folder else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            let known = seen.withLock { s -> Set<Int64>? in
                guard now &- s.checkedAt >= 1_000_000_000 else { return nil }
                s.checkedAt = now
                return s.stamps
            }
            guard let known, let listed = try? KeyRing.stamps(in: folder) else { return }
            let added = Set(listed).subtracting(known)
            guard !added.isEmpty, keysIfReady != nil else { return }
            var loaded: [(Int64, SigningKey)] = []
            for stamp in added.sorted(by: >) {
                guard let key = try? SigningKey.load(at: "\(folder)/\(stamp).pem") else { return }
                loaded.append((stamp, key))
            }
            let newest = known.max() ?? .min
            keys.withLock { result in
                guard case .success(let current)? = result else { return }
                let newer = loaded.filter { $0.0 > newest }.map(\.1)
                let older = loaded.filter { $0.0 <= newest }.map(\.1)
                result = .success(newer + current + older)
            }
            seen.withLock { $0.stamps.formUnion(added) }
        }

        var keysIfReady: [SigningKey]? {
            keys.withLock { try? $0?.get() }
        }

        func waitForKeys() throws -> [SigningKey] {
            creation.wait()
            return try keys.withLock { $0! }.get()
        }

        func ready() async throws {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                creation.notify(queue: .global()) { done.resume() }
            }
            _ = try keys.withLock { $0! }.get()
        }
    }
}

extension JSONValue {
    /// The first element of an array.
    subscript(first _: Void) -> JSONValue? {
        if case .array(let items) = self { return items.first }
        return nil
    }
}

extension KeyRing {
    /// `{kid: "-----BEGIN CERTIFICATE-----…"}` for every key: the x509 form Google publishes for
    /// ID-token keys (self-signed certificates that carry the public keys).
    public func x509Certificates(now: Date = Date()) throws -> JSONValue {
        .object(try slot.waitForKeys().compactMap { key in
            (try? key.selfSignedCertificatePEM(now: now)).map { JSONMember(key.kid, .string($0)) }
        })
    }
}
