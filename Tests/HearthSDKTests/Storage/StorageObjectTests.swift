import Foundation
@testable import Hearth
import class HearthStorage.StorageService
import Testing

/// Uploads, downloads, metadata, download URLs, listing and deletion against a live server.
@Suite("Storage objects (live)")
struct StorageObjectTests {
    /// A signed-in user's `Storage` (the default rules let signed-in users read and write).
    static func signedIn(_ server: LiveHearth) async throws -> Storage {
        let auth = server.auth()
        try await auth.signInAnonymously()
        return Storage(options: server.options(), auth: auth)
    }

    @Test func referencesNavigatePaths() async throws {
        let storage = Storage(options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:1")!, projectID: "demo"))
        let ref = storage.reference("/users//ann/photos/")
        #expect(ref.fullPath == "users/ann/photos")
        #expect(ref.name == "photos")
        #expect(ref.bucket == "demo.appspot.com")
        #expect(ref.child("2024/beach.jpg").fullPath == "users/ann/photos/2024/beach.jpg")
        #expect(ref.parent?.fullPath == "users/ann")
        #expect(ref.parent?.parent?.parent == storage.reference())
        #expect(storage.reference().parent == nil)
        #expect(ref.root.fullPath == "")
        #expect(ref.description == "gs://demo.appspot.com/users/ann/photos")
    }

    @Test func smallUploadDownloadMetadataAndDelete() async throws {
        try await withAuthStorageServer { server in
            let storage = try await Self.signedIn(server)
            let ref = storage.reference("notes/hello.txt")
            let bytes = Data("Hello, Hearth!".utf8)
            let uploaded = try await ref.putData(
                bytes, metadata: StorageMetadata(contentType: "text/plain", cacheControl: "max-age=60", customMetadata: ["lang": "en"]))
            #expect(uploaded.path == "notes/hello.txt")
            #expect(uploaded.name == "hello.txt")
            #expect(uploaded.bucket == "demo.appspot.com")
            #expect(uploaded.size == Int64(bytes.count))
            #expect(uploaded.contentType == "text/plain")
            #expect(uploaded.cacheControl == "max-age=60")
            #expect(uploaded.customMetadata == ["lang": "en"])
            #expect(uploaded.md5Hash == MD5.base64(bytes))
            #expect(uploaded.downloadTokens.count == 1)
            #expect(uploaded.generation > 0)
            #expect(uploaded.metageneration == 1)
            #expect(uploaded.timeCreated != nil)

            #expect(try await ref.data(maxSize: 1024) == bytes)
            let tooSmall = await #expect(throws: StorageError.self) { try await ref.data(maxSize: 5) }
            #expect(tooSmall?.code == .downloadSizeExceeded)

            let metadata = try await ref.metadata()
            #expect(metadata == uploaded)

            var change = StorageMetadata(contentType: "text/markdown")
            change.customMetadata = ["reviewed": "yes"]
            let updated = try await ref.updateMetadata(change)
            #expect(updated.contentType == "text/markdown")
            #expect(updated.customMetadata == ["lang": "en", "reviewed": "yes"])
            #expect(updated.cacheControl == "max-age=60")
            #expect(updated.metageneration == 2)

            // The download URL works without credentials.
            let url = try await ref.downloadURL()
            #expect(url.absoluteString.hasPrefix("\(server.url.absoluteString)/v0/b/demo.appspot.com/o/notes%2Fhello.txt?alt=media&token="))
            let fetched = try await server.fetch(url)
            #expect(fetched.status == 200)
            #expect(fetched.body == bytes)

            try await ref.delete()
            let missing = await #expect(throws: StorageError.self) { try await ref.metadata() }
            #expect(missing?.code == .objectNotFound)
            #expect(missing?.status == 404)
            let again = await #expect(throws: StorageError.self) { try await ref.delete() }
            #expect(again?.code == .objectNotFound)
            // The token died with the object; without credentials the rules hide whether it exists.
            #expect(try await server.fetch(url).status == 403)
        }
    }

    @Test func emptyObjectRoundTrips() async throws {
        try await withAuthStorageServer { server in
            let storage = try await Self.signedIn(server)
            let ref = storage.reference("empty.bin")
            let metadata = try await ref.putData(Data())
            #expect(metadata.size == 0)
            #expect(metadata.contentType == "application/octet-stream")
            #expect(try await ref.data(maxSize: 10) == Data())
        }
    }

    @Test func listingShowsItemsFoldersAndPages() async throws {
        try await withAuthStorageServer { server in
            let storage = try await Self.signedIn(server)
            for path in ["album/a.jpg", "album/b.jpg", "album/c.jpg", "album/2024/d.jpg", "album/2025/e.jpg", "other/f.jpg"] {
                try await storage.reference(path).putData(Data(path.utf8))
            }
            let album = storage.reference("album")
            let all = try await album.listAll()
            #expect(all.items.map(\.fullPath) == ["album/a.jpg", "album/b.jpg", "album/c.jpg"])
            #expect(all.prefixes.map(\.fullPath) == ["album/2024", "album/2025"])
            #expect(all.pageToken == nil)

            let first = try await album.list(maxResults: 2)
            #expect(first.items.count + first.prefixes.count == 2)
            let token = try #require(first.pageToken)
            var seen = first.items.map(\.fullPath) + first.prefixes.map(\.fullPath)
            var next: String? = token
            while let page = next {
                let result = try await album.list(maxResults: 2, pageToken: page)
                seen += result.items.map(\.fullPath) + result.prefixes.map(\.fullPath)
                next = result.pageToken
            }
            #expect(Set(seen) == Set(all.items.map(\.fullPath) + all.prefixes.map(\.fullPath)))
            #expect(seen.count == 5)

            let root = try await storage.reference().listAll()
            #expect(root.items.isEmpty)
            #expect(root.prefixes.map(\.fullPath) == ["album", "other"])
            #expect(try await storage.reference("album/2024").listAll().items.map(\.name) == ["d.jpg"])
        }
    }

    @Test(arguments: ["with space.txt", "ünïcödé/日本語 ファイル.txt", "hash#tag.txt", "what?.txt", "100%25 & 50%.txt", "plus+eq=amp&.txt", "emoji 🔥.bin"])
    func namesWithSpecialCharactersRoundTrip(_ name: String) async throws {
        try await withAuthStorageServer { server in
            let storage = try await Self.signedIn(server)
            let ref = storage.reference("special/" + name)
            let bytes = Data(("contents of " + name).utf8)
            let metadata = try await ref.putData(bytes)
            #expect(metadata.path == "special/" + name)
            #expect(try await ref.metadata().path == "special/" + name)
            #expect(try await ref.data(maxSize: 1000) == bytes)
            #expect(try await server.fetch(try await ref.downloadURL()).body == bytes)
            let folder = ref.parent!
            #expect(try await folder.listAll().items.map(\.fullPath) == ["special/" + name])
            try await ref.delete()
            #expect(try await folder.listAll().items.isEmpty)
        }
    }

    @Test func signedOutCallersAreRefusedByTheDefaultRules() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let storage = Storage(options: server.options(), auth: auth)
            let ref = storage.reference("private/doc.txt")

            let upload = await #expect(throws: StorageError.self) { try await ref.putData(Data("x".utf8)) }
            #expect(upload?.code == .unauthorized)
            #expect(upload?.status == 403)

            try await auth.signInAnonymously()
            try await ref.putData(Data("secret".utf8))
            let url = try await ref.downloadURL()
            try auth.signOut()

            let read = await #expect(throws: StorageError.self) { try await ref.data(maxSize: 100) }
            #expect(read?.code == .unauthorized)
            let list = await #expect(throws: StorageError.self) { try await ref.parent!.list() }
            #expect(list?.code == .unauthorized)
            let delete = await #expect(throws: StorageError.self) { try await ref.delete() }
            #expect(delete?.code == .unauthorized)
            // No Storage auth at all behaves the same.
            let anonymous = Storage(options: server.options())
            let metadata = await #expect(throws: StorageError.self) { try await anonymous.reference("private/doc.txt").metadata() }
            #expect(metadata?.code == .unauthorized)
            // The download URL's token still works.
            #expect(try await server.fetch(url).body == Data("secret".utf8))
        }
    }

    @Test func putFileUploadsTheFilesBytes() async throws {
        try await withAuthStorageServer { server in
            let storage = try await Self.signedIn(server)
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("report.csv")
            let bytes = Data("a,b\n1,2\n".utf8)
            try bytes.write(to: file)
            let metadata = try await storage.reference("reports/report.csv").putFile(from: file, metadata: StorageMetadata(contentType: "text/csv"))
            #expect(metadata.contentType == "text/csv")
            #expect(try await storage.reference("reports/report.csv").data(maxSize: 100) == bytes)
            let missing = await #expect(throws: StorageError.self) {
                try await storage.reference("x").putFile(from: folder.appendingPathComponent("nope"))
            }
            #expect(missing?.code == .localFile)
        }
    }
}
