import Foundation
import class HearthStorage.StorageService
import Testing

@testable import Hearth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Storage from the SDK (live)")
struct StorageLiveTests {
    static func signedIn(_ live: LiveHearth) async throws -> (Storage, Auth) {
        let auth = live.auth()
        try await auth.signInAnonymously()
        return (Storage(options: live.options(), auth: auth), auth)
    }

    @Test func missingObjectsAreTypedNotFound() async throws {
        try await withAuthStorageServer { live in
            let (storage, _) = try await Self.signedIn(live)
            let ref = storage.reference("nothing/here.txt")
            let read = await #expect(throws: StorageError.self) { try await ref.data(maxSize: 100) }
            #expect(read?.code == .objectNotFound)
            let url = await #expect(throws: StorageError.self) { try await ref.downloadURL() }
            #expect(url?.code == .objectNotFound)
            let update = await #expect(throws: StorageError.self) { try await ref.updateMetadata(StorageMetadata(contentType: "text/plain")) }
            #expect(update?.code == .objectNotFound)
            let empty = try await storage.reference("nothing").listAll()
            #expect(empty.items.isEmpty && empty.prefixes.isEmpty)
            let bad = await #expect(throws: StorageError.self) { try await storage.reference("x").list(maxResults: 0) }
            #expect(bad?.code == .invalidArgument)
        }
    }

    @Test func largeResumableUploadDownloadsThroughItsURLAndReplacesCleanly() async throws {
        try await withAuthStorageServer { live in
            let (storage, _) = try await Self.signedIn(live)
            let ref = storage.reference("big/blob.bin")
            var bytes = Data(count: 6 * 1024 * 1024 + 17)
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 9) }
            let metadata = try await ref.putData(bytes, metadata: StorageMetadata(contentType: "application/x-test", customMetadata: ["k": "v"]))
            #expect(metadata.size == Int64(bytes.count))
            #expect(metadata.contentType == "application/x-test")
            #expect(metadata.customMetadata == ["k": "v"])
            let url = try await ref.downloadURL()
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(data == bytes)
            // Replacing it with small data makes a new generation with only the new bytes.
            let small = try await ref.putData(Data("small".utf8))
            #expect(small.size == 5)
            #expect(small.generation != metadata.generation)
            #expect(try await ref.data(maxSize: 100) == Data("small".utf8))
            let sizeLimited = await #expect(throws: StorageError.self) { try await ref.data(maxSize: 4) }
            #expect(sizeLimited?.code == .downloadSizeExceeded)
            try await ref.delete()
            #expect(try await storage.reference("big").listAll().items.isEmpty)
        }
    }

    @Test func listPagesNeverRepeatOrSkipAcrossManyObjects() async throws {
        try await withAuthStorageServer { live in
            let (storage, _) = try await Self.signedIn(live)
            let names = (0..<23).map { String(format: "f%02d.txt", $0) }
            for name in names { try await storage.reference("many/\(name)").putData(Data(name.utf8)) }
            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await storage.reference("many").list(maxResults: 5, pageToken: token)
                #expect(page.items.count <= 5)
                seen += page.items.map(\.name)
                token = page.pageToken
                pages += 1
            } while token != nil && pages < 20
            #expect(seen == names)
            #expect(pages == 5)
        }
    }

    @Test func storageRequestsFollowTheSignedInUser() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let storage = Storage(options: live.options(), auth: auth)
            let ref = storage.reference("mine/a.txt")
            try await auth.signInAnonymously()
            try await ref.putData(Data("a".utf8))
            try auth.signOut()
            let refused = await #expect(throws: StorageError.self) { try await ref.data(maxSize: 10) }
            #expect(refused?.code == .unauthorized || refused?.code == .unauthenticated)
            try await auth.signInAnonymously()
            #expect(try await ref.data(maxSize: 10) == Data("a".utf8))
        }
    }
}
