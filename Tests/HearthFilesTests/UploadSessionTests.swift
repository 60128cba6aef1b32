import Crypto
import Foundation
import HearthFiles
import NIOCore
import Testing

@Suite("Resumable upload sessions")
struct UploadSessionTests {
    static func open(_ folder: String, bufferSize: Int = 1 << 20) async throws -> LocalDiskBlobStore {
        var configuration = LocalDiskBlobStore.Configuration()
        configuration.writeBufferSize = bufferSize
        return try await LocalDiskBlobStore(folder: folder, configuration: configuration)
    }

    @Test func appendQueryFinalizeAcrossARestart() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        var random = SeededGenerator(seed: 20)
        let data = random.bytes(30_000)
        var store = try await Self.open(folder, bufferSize: 4096)
        let upload = try await store.startUpload()
        #expect(try await store.uploadSize(upload) == 0)

        var size = try await store.append(to: upload, at: 0, contentsOf: stream(buffers(Array(data[..<10_000]), cuts: [1, 5000])))
        #expect(size == 10_000)
        #expect(try await store.uploadSize(upload) == 10_000)

        store = try await Self.open(folder, bufferSize: 4096)  // restart: digests must be recomputed
        #expect(try await store.uploadSize(upload) == 10_000)
        size = try await store.append(to: upload, at: 10_000, contentsOf: stream([ByteBuffer(bytes: data[10_000..<20_000])]))
        #expect(size == 20_000)

        store = try await Self.open(folder, bufferSize: 4096)
        size = try await store.append(to: upload, at: 20_000, contentsOf: stream([ByteBuffer(bytes: data[20_000...])]))
        #expect(size == 30_000)

        let blob = try await store.finalize(upload)
        #expect(blob.id.rawValue == upload.rawValue)
        #expect(blob.digests.md5 == Array(Insecure.MD5.hash(data: data)))
        #expect(blob.digests.crc32c == CRC32C.checksum(data))
        #expect(blob.digests.size == 30_000)
        #expect(try await store.bytes(of: blob.id).bytes == data)
        #expect(try await store.uploadSize(upload) == nil)
        #expect(files(under: folder) == ["blobs/\(blob.id.shard)/\(blob.id)"])

        // A retried finalize (lost response) answers the same.
        #expect(try await store.finalize(upload) == blob)
    }

    @Test func resentBytesAreSkippedAndGapsRefused() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 3)
        let upload = try await store.startUpload()
        _ = try await store.append(to: upload, at: 0, contentsOf: stream([ByteBuffer(string: "hello ")]))
        // The client did not see the reply and sends "lo world" from offset 3 again.
        let size = try await store.append(to: upload, at: 3, contentsOf: stream(buffers(Array("lo world".utf8), cuts: [1, 2])))
        #expect(size == 11)
        let error = await #expect(throws: BlobStoreError.self) {
            try await store.append(to: upload, at: 12, contentsOf: stream([ByteBuffer(string: "!")]))
        }
        #expect(error?.code == .offsetGap)
        let blob = try await store.finalize(upload)
        #expect(try await store.bytes(of: blob.id).bytes == Array("hello world".utf8))
        #expect(blob.digests.crc32c == 0xC994_65AA)
    }

    /// A request that dies mid-body keeps the bytes that arrived, and the running digests stay
    /// right when the client resumes from the reported size.
    @Test func interruptedAppendKeepsWhatArrived() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 1 << 16)
        let upload = try await store.startUpload()
        await #expect(throws: ClientWentAway.self) {
            try await store.append(to: upload, at: 0, contentsOf: failingStream([ByteBuffer(string: "abc"), ByteBuffer(string: "def")]))
        }
        let received = try #require(try await store.uploadSize(upload))
        #expect(received == 6)
        _ = try await store.append(to: upload, at: received, contentsOf: stream([ByteBuffer(string: "ghi")]))
        let blob = try await store.finalize(upload)
        #expect(blob.digests.md5 == Array(Insecure.MD5.hash(data: Array("abcdefghi".utf8))))
        #expect(blob.digests.crc32c == CRC32C.checksum(Array("abcdefghi".utf8)))
    }

    @Test func oneRequestAtATimePerSession() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 1)
        let upload = try await store.startUpload()
        let (body, feed) = AsyncStream<ByteBuffer>.makeStream()
        try await withThrowingTaskGroup(of: Int64.self) { group in
            group.addTask { try await store.append(to: upload, at: 0, contentsOf: body) }
            feed.yield(ByteBuffer(string: "x"))
            // Wait until the first append has written its byte, so it holds the session.
            while try await store.uploadSize(upload) != 1 { try await Task.sleep(for: .milliseconds(1)) }
            let busy = await #expect(throws: BlobStoreError.self) { try await store.finalize(upload) }
            #expect(busy?.code == .uploadBusy)
            feed.finish()
            #expect(try await group.next() == 1)
        }
        #expect(try await store.finalize(upload).digests.size == 1)
    }

    @Test func cancelAndUnknownSessions() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder)
        let upload = try await store.startUpload()
        _ = try await store.append(to: upload, at: 0, contentsOf: stream([ByteBuffer(string: "data")]))
        #expect(try await store.cancel(upload))
        #expect(try await store.cancel(upload) == false)
        #expect(try await store.uploadSize(upload) == nil)
        for attempt in [0, 1] {
            let error = await #expect(throws: BlobStoreError.self) {
                if attempt == 0 {
                    _ = try await store.append(to: upload, at: 0, contentsOf: stream([]))
                } else {
                    _ = try await store.finalize(upload)
                }
            }
            #expect(error?.code == .notFound)
        }
        #expect(files(under: folder).isEmpty)
    }

    @Test func staleSessionsAreRemoved() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder)
        let upload = try await store.startUpload()
        #expect(try await store.removeUploads(notModifiedSince: Date(timeIntervalSinceNow: -3600)) == 0)
        #expect(try await store.uploadSize(upload) == 0)
        #expect(try await store.removeUploads(notModifiedSince: Date(timeIntervalSinceNow: 3600)) == 1)
        #expect(try await store.uploadSize(upload) == nil)
    }
}
