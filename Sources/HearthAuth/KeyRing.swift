import Foundation
public import HearthCore

/// The signing keys of a project: the newest signs, every key still in the ring verifies.
///
/// Keys live in `<data>/auth-keys/<created-ms>.pem` (mode 0600). `rotate(in:)` adds a key; the
/// next server start signs with it. A replaced key stays for 15 days after its successor appeared
/// (the longest session cookie is 14 days; ID tokens live an hour), then it is removed at start.
public struct KeyRing: Sendable {
    public let current: SigningKey
    public let all: [SigningKey]

    public init(current: SigningKey, older: [SigningKey] = []) {
        self.current = current
        all = [current] + older
    }

    static let retention: Int64 = 15 * 24 * 3600 * 1000

    /// Loads the keys in `folder`, creating the first one if there is none, and prunes keys whose
    /// successor is older than the retention.
    public static func load(folder: String, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws -> KeyRing {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var files = try stamps(in: folder)
        if files.isEmpty {
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
        return KeyRing(current: keys[0], older: Array(keys.dropFirst()))
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

    /// Every public key, for `/.well-known/jwks.json`.
    public var jwks: JSONValue {
        .object([JSONMember("keys", .array(all.compactMap { $0.jwks["keys"]?[first: ()] }))])
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
    public func x509Certificates(now: Date = Date()) -> JSONValue {
        .object(all.compactMap { key in
            (try? key.selfSignedCertificatePEM(now: now)).map { JSONMember(key.kid, .string($0)) }
        })
    }
}
