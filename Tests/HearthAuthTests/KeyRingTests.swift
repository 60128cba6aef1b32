import Foundation
import HearthCore
import Testing

@testable import HearthAuth

/// The signing keys in a data folder: creation (now or in the background), rotation, retention.
@Suite("Key ring")
struct KeyRingTests {
    static let day: Int64 = 24 * 3600 * 1000
    /// 2026-01-01, in milliseconds.
    static let t0: Int64 = 1_767_225_600_000

    func emptyFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "hearth-keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    func token(_ ring: KeyRing, sub: String) throws -> String {
        try ring.current.sign(.object([JSONMember("sub", .string(sub))]))
    }

    @Test("a first load creates one key, readable by the owner only, and later loads find the same key")
    func firstLoadCreatesAKey() throws {
        let folder = try emptyFolder()
        let ring = try KeyRing.load(folder: folder, now: Self.t0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["\(Self.t0).pem"])
        let mode = try FileManager.default.attributesOfItem(atPath: "\(folder)/\(Self.t0).pem")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try KeyRing.load(folder: folder, now: Self.t0 + 1000)
        #expect(try again.current.kid == ring.current.kid)
        #expect(again.all.count == 1)
        #expect(again.verifiedPayload(try token(ring, sub: "u1"))?["sub"]?.stringValue == "u1")
    }

    @Test("after a rotation the new key signs and the old key still verifies what it signed")
    func rotationKeepsOldTokensValid() throws {
        let folder = try emptyFolder()
        let before = try KeyRing.load(folder: folder, now: Self.t0)
        let oldToken = try token(before, sub: "old")
        let newKid = try KeyRing.rotate(in: folder, now: Self.t0 + Self.day)
        #expect(newKid != (try before.current.kid))

        let after = try KeyRing.load(folder: folder, now: Self.t0 + Self.day + 1000)
        #expect(try after.current.kid == newKid)
        #expect(after.all.map(\.kid) == [newKid, try before.current.kid])
        #expect(after.verifiedPayload(oldToken)?["sub"]?.stringValue == "old")
        let newToken = try token(after, sub: "new")
        #expect(after.verifiedPayload(newToken)?["sub"]?.stringValue == "new")
        // The ring before the rotation does not know the new key.
        #expect(before.verifiedPayload(newToken) == nil)
        // Both public keys are published.
        guard case .array(let published)? = try after.jwks["keys"] else { Issue.record("no keys array"); return }
        #expect(published.compactMap { $0["kid"]?.stringValue } == [newKid, try before.current.kid])
    }

    @Test("a rotation within the same millisecond as the current key still makes a newer key")
    func rotationInTheSameMillisecond() throws {
        let folder = try emptyFolder()
        let first = try KeyRing.load(folder: folder, now: Self.t0)
        let kid = try KeyRing.rotate(in: folder, now: Self.t0)
        #expect(try KeyRing.load(folder: folder, now: Self.t0).current.kid == kid)
        #expect(kid != (try first.current.kid))
    }

    @Test("a replaced key is kept for 15 days after its successor appeared, then removed at load")
    func replacedKeysExpire() throws {
        let folder = try emptyFolder()
        let first = try KeyRing.load(folder: folder, now: Self.t0)
        let oldToken = try token(first, sub: "old")
        let successor = Self.t0 + 30 * Self.day
        _ = try KeyRing.rotate(in: folder, now: successor)

        let within = try KeyRing.load(folder: folder, now: successor + 15 * Self.day)
        #expect(within.all.count == 2)
        #expect(within.verifiedPayload(oldToken) != nil)

        let past = try KeyRing.load(folder: folder, now: successor + 15 * Self.day + 1)
        #expect(past.all.count == 1)
        #expect(past.verifiedPayload(oldToken) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["\(successor).pem"])
    }

    @Test("created in the background, the first key signs once it exists and is the one stored")
    func backgroundCreation() async throws {
        let folder = try emptyFolder()
        let ring = try KeyRing.load(folder: folder, creatingInBackground: true, now: Self.t0)
        // Signing waits for the key; afterwards it is on disk and the ring verifies with it.
        let signed = try token(ring, sub: "u1")
        try await ring.waitUntilReady()
        #expect(ring.all.count == 1)
        #expect(ring.verifiedPayload(signed)?["sub"]?.stringValue == "u1")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["\(Self.t0).pem"])
        #expect(try KeyRing.load(folder: folder, now: Self.t0 + 1).current.kid == ring.current.kid)
    }

    @Test("a key that cannot be written fails signing and the wait with an error, and is not half-stored")
    func backgroundCreationFailure() async throws {
        let folder = try emptyFolder()
        // A directory where the key is written aside makes the write fail, even for root.
        try FileManager.default.createDirectory(atPath: "\(folder)/\(Self.t0).pem.partial", withIntermediateDirectories: false)
        let ring = try KeyRing.load(folder: folder, creatingInBackground: true, now: Self.t0)
        await #expect(throws: (any Error).self) { try await ring.waitUntilReady() }
        #expect(throws: (any Error).self) { try ring.current }
        #expect(throws: (any Error).self) { try ring.jwks }
        #expect(ring.all.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(Self.t0).pem"))
    }

    @Test("a key file left half-written by a crash (the .partial file) is ignored and replaced")
    func partialFilesAreIgnored() throws {
        let folder = try emptyFolder()
        try "-----BEGIN PRIV".write(toFile: "\(folder)/\(Self.t0 - 5).pem.partial", atomically: false, encoding: .utf8)
        let ring = try KeyRing.load(folder: folder, now: Self.t0)
        #expect(ring.all.count == 1)
        #expect(FileManager.default.fileExists(atPath: "\(folder)/\(Self.t0).pem"))
    }
}
