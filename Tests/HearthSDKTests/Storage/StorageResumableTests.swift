import Foundation
@testable import Hearth
import class HearthStorage.StorageService
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resumable uploads (X-Goog-Upload protocol) against a live server.
@Suite("Storage resumable uploads (live)")
struct StorageResumableTests {
    static func randomBytes(_ count: Int) -> Data {
        var rng = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var i = 0
            while i + 8 <= count {
                raw.storeBytes(of: rng.next() as UInt64, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < count {
                raw[i] = UInt8.random(in: 0...255, using: &rng)
                i += 1
            }
        }
        return data
    }

    @Test func sixMebibytesGoUpInChunksAndComeBackIdentical() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = Self.randomBytes(6 * 1024 * 1024 + 12345)
            let ref = storage.reference("big/blob.bin")
            let metadata = try await ref.putData(bytes, metadata: StorageMetadata(contentType: "application/x-test"))
            #expect(metadata.size == Int64(bytes.count))
            #expect(metadata.md5Hash == MD5.base64(bytes))
            #expect(metadata.contentType == "application/x-test")
            #expect(metadata.downloadTokens.count == 1)
            let downloaded = try await ref.data(maxSize: 7 * 1024 * 1024)
            #expect(downloaded.count == bytes.count)
            #expect(downloaded == bytes)
            #expect(MD5.base64(downloaded) == metadata.md5Hash)
        }
    }

    @Test func interruptedUploadResumesFromWhatTheServerHas() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let bytes = Self.randomBytes(1024 * 1024 + 777)
            let ref = storage.reference("big/resumed.bin")
            let upload = try ResumableUpload(reference: ref, data: bytes, metadata: StorageMetadata(), md5: MD5.base64(bytes))
            let session = try await upload.start()
            // The first 512 KiB arrive, then the client "crashes".
            #expect(try await upload.sendChunk(session: session, range: 0..<(512 * 1024), command: "upload") == nil)

            let status = try await upload.query(session: session)
            #expect(status.received == 512 * 1024)
            #expect(status.final == nil)

            let metadata = try await upload.send(session: session, from: Int(status.received))
            #expect(metadata.size == Int64(bytes.count))
            #expect(metadata.md5Hash == MD5.base64(bytes))
            #expect(try await ref.data(maxSize: 2 * 1024 * 1024) == bytes)

            // Asking again after the end says the upload is final, with the object.
            let done = try await upload.query(session: session)
            #expect(done.final?.md5Hash == metadata.md5Hash)
        }
    }

    @Test func smallThresholdSendsEvenSmallDataResumably() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signInAnonymously()
            let storage = Storage(options: server.options(), auth: auth, session: .shared, resumableThreshold: 1000, initialChunkSize: 256 * 1024)
            let bytes = Self.randomBytes(600 * 1024)
            let metadata = try await storage.reference("chunks.bin").putData(bytes)
            #expect(metadata.size == Int64(bytes.count))
            #expect(try await storage.reference("chunks.bin").data(maxSize: 1 << 20) == bytes)
        }
    }

    @Test func resumableUploadIsRefusedWhenSignedOut() async throws {
        try await withAuthStorageServer { server in
            let storage = Storage(options: server.options(), auth: server.auth(), session: .shared, resumableThreshold: 10, initialChunkSize: 256 * 1024)
            let error = await #expect(throws: StorageError.self) { try await storage.reference("x.bin").putData(Self.randomBytes(1000)) }
            #expect(error?.code == .unauthorized)
        }
    }

    @Test func cancellingTheTaskCancelsTheUpload() async throws {
        try await withAuthStorageServer { server in
            let storage = try await StorageObjectTests.signedIn(server)
            let ref = storage.reference("big/cancelled.bin")
            let bytes = Self.randomBytes(8 * 1024 * 1024)
            let task = Task { try await ref.putData(bytes) }
            task.cancel()
            let error = await #expect(throws: StorageError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            let missing = await #expect(throws: StorageError.self) { try await ref.metadata() }
            #expect(missing?.code == .objectNotFound)
        }
    }

    @Test func md5MatchesKnownVectors() {
        #expect(MD5.base64(Data()) == "1B2M2Y8AsgTpgAmY7PhCfg==")
        #expect(MD5.base64(Data("abc".utf8)) == "kAFQmDzST7DWlj99KOF/cg==")
        #expect(MD5.base64(Data("The quick brown fox jumps over the lazy dog".utf8)) == "nhB9nTcrtoJr2B01QqQZ1g==")
        // Lengths around the 56/64-byte padding boundary.
        let sixtyFour = Data(repeating: 0x61, count: 64)
        #expect(MD5.base64(sixtyFour) == Data(hex: "014842d480b571495a4a0363793f7367")?.base64EncodedString())
    }
}

extension Data {
    init?(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
