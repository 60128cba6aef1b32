import Crypto
import Foundation
import HearthFiles
import NIOCore
import Testing

@Suite("Local disk blob store")
struct LocalDiskBlobStoreTests {
    static func open(
        _ folder: String, bufferSize: Int = 1 << 20, chunkSize: Int = 1 << 20, hardLinks: Bool = true
    ) async throws -> LocalDiskBlobStore {
        var configuration = LocalDiskBlobStore.Configuration()
        configuration.writeBufferSize = bufferSize
        configuration.readChunkSize = chunkSize
        configuration.hardLinkCopies = hardLinks
        return try await LocalDiskBlobStore(folder: folder, configuration: configuration)
    }

    @Test func writeCommitReadDelete() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 1000)
        var random = SeededGenerator(seed: 10)
        let data = random.bytes(25_000)
        let pieces = random.pieces(of: data.count, maxPiece: 3000).map { ByteBuffer(bytes: data[$0]) }

        let blob = try await store.write(contentsOf: stream(pieces))
        #expect(blob.digests.size == 25_000)
        #expect(blob.digests.md5 == Array(Insecure.MD5.hash(data: data)))
        #expect(blob.digests.crc32c == CRC32C.checksum(data))
        #expect(try await store.bytes(of: blob.id).bytes == data)
        #expect(try await store.size(of: blob.id) == 25_000)
        #expect(files(under: folder) == ["blobs/\(blob.id.shard)/\(blob.id)"])

        #expect(try await store.delete(blob.id))
        #expect(try await store.delete(blob.id) == false)
        #expect(try await store.size(of: blob.id) == nil)
        let error = await #expect(throws: BlobStoreError.self) { try await store.bytes(of: blob.id) }
        #expect(error?.code == .notFound)
    }

    @Test("an opened blob stays readable after it is deleted, and missing blobs do not open")
    func openedBlobOutlivesDelete() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, chunkSize: 4096)
        var random = SeededGenerator(seed: 11)
        let data = random.bytes(20_000)
        let blob = try await store.write(ByteBuffer(bytes: data))
        let opened = try await store.open(blob.id)
        #expect(opened.size == 20_000)
        #expect(try await store.delete(blob.id))
        #expect(try await store.size(of: blob.id) == nil)
        var all: [UInt8] = []
        try await opened.read(range: nil) { all += Array($0.readableBytesView) }
        #expect(all == data)
        var slice: [UInt8] = []
        try await opened.read(range: 100..<9000) { slice += Array($0.readableBytesView) }
        #expect(slice == Array(data[100..<9000]))
        await #expect(throws: BlobStoreError.self) { try await opened.read(range: 0..<20_001) { _ in } }
        await #expect(throws: BlobStoreError.self) { _ = try await store.open(blob.id) }
    }

    @Test func emptyBlob() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder)
        let blob = try await store.write(ByteBuffer())
        #expect(blob.digests == BlobDigests.empty)
        #expect(try await store.size(of: blob.id) == 0)
        #expect(try await store.bytes(of: blob.id).readableBytes == 0)
    }

    @Test func rangesAndChunking() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, chunkSize: 7)
        let data = (0..<100).map { UInt8($0) }
        let blob = try await store.write(ByteBuffer(bytes: data))
        for range: Range<Int64> in [0..<100, 0..<1, 99..<100, 10..<11, 13..<57, 50..<50, 100..<100] {
            var sizes: [Int] = []
            var got: [UInt8] = []
            try await store.read(blob.id, range: range) { chunk in
                sizes.append(chunk.readableBytes)
                got += chunk.bytes
            }
            #expect(got == Array(data[Int(range.lowerBound)..<Int(range.upperBound)]))
            #expect(sizes.allSatisfy { $0 > 0 && $0 <= 7 })
        }
        for bad: Range<Int64> in [0..<101, 100..<101, -1..<3] {
            let error = await #expect(throws: BlobStoreError.self) { try await store.bytes(of: blob.id, range: bad) }
            #expect(error?.code == .invalidRange)
        }
    }

    @Test func abortLeavesNothing() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 16)
        let writer = try await store.makeWriter()
        try await writer.write(ByteBuffer(repeating: 1, count: 100))
        #expect(files(under: folder).count == 1)  // the temporary file
        await writer.abort()
        #expect(files(under: folder).isEmpty)
        let error = await #expect(throws: BlobStoreError.self) { try await writer.commit() }
        #expect(error?.code == .writerClosed)
    }

    /// Buffers are hashed on the thread pool beside their writes; the digests asked mid-upload
    /// still cover exactly the bytes written so far, buffered or not, and writing goes on after.
    @Test func digestsMidUploadCoverEveryByteWritten() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 64)
        var random = SeededGenerator(seed: 11)
        let data = random.bytes(5_000)
        let writer = try await store.makeWriter()
        var checked = 0
        for (index, range) in random.pieces(of: data.count, maxPiece: 150).enumerated() {
            try await writer.write(ByteBuffer(bytes: data[range]))
            let written = range.upperBound
            if index % 4 == 0 {
                checked += 1
                expectDigests(await writer.digests, of: data[..<written])
            }
        }
        #expect(checked >= 10)
        let blob = try await writer.commit()
        expectDigests(blob.digests, of: data[...])
        #expect(await writer.digests == blob.digests)
        #expect(try await store.bytes(of: blob.id).bytes == data)
    }

    @Test func writerCannotBeUsedAfterCommit() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder)
        let writer = try await store.makeWriter()
        try await writer.write(ByteBuffer(string: "abc"))
        #expect(await writer.digests.size == 3)
        let blob = try await writer.commit()
        #expect(try await store.bytes(of: blob.id).bytes == Array("abc".utf8))
        let error = await #expect(throws: BlobStoreError.self) { try await writer.write(ByteBuffer(string: "d")) }
        #expect(error?.code == .writerClosed)
        await writer.abort()  // harmless, and must not remove the committed blob
        #expect(try await store.size(of: blob.id) == 3)
    }

    @Test func failingBodyStoresNothing() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 8)
        await #expect(throws: ClientWentAway.self) {
            try await store.write(contentsOf: failingStream([ByteBuffer(repeating: 7, count: 50)]))
        }
        #expect(files(under: folder).isEmpty)
    }

    /// A write abandoned mid-way (as by a crash) is never visible as a blob, and its temporary
    /// file is gone once the store is opened again.
    @Test func abandonedWriteIsInvisibleAndCleanedOnReopen() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 1024)
        let writer = try await store.makeWriter()
        try await writer.write(ByteBuffer(repeating: 9, count: 10_000))
        let leftovers = files(under: folder)
        #expect(leftovers.count == 1)
        #expect(leftovers.allSatisfy { $0.hasPrefix("tmp/") })

        _ = try await Self.open(folder)  // "restart"
        #expect(files(under: folder).isEmpty)
        // The old writer's file is gone, so it cannot publish a half blob either.
        await #expect(throws: BlobStoreError.self) { try await writer.commit() }
        #expect(files(under: folder).isEmpty)
    }

    @Test func droppedWriterRemovesItsTemporaryFile() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 16)
        try await Self.writeAndDrop(store)
        #expect(files(under: folder).isEmpty)
    }

    private static func writeAndDrop(_ store: LocalDiskBlobStore) async throws {
        let writer = try await store.makeWriter()
        try await writer.write(ByteBuffer(repeating: 3, count: 64))
    }

    @Test(arguments: [true, false])
    func copyKeepsBytesAndSurvivesDeletingTheOriginal(hardLinks: Bool) async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, bufferSize: 100, hardLinks: hardLinks)
        var random = SeededGenerator(seed: 11)
        let data = random.bytes(5000)
        let original = try await store.write(ByteBuffer(bytes: data))
        let copy = try await store.copy(original.id)
        #expect(copy != original.id)
        #expect(try await store.delete(original.id))
        #expect(try await store.bytes(of: copy).bytes == data)
        let error = await #expect(throws: BlobStoreError.self) { try await store.copy(original.id) }
        #expect(error?.code == .notFound)
    }

    @Test func idsAreValidatedSoTheyCannotNameOtherFiles() {
        #expect(BlobID("../../etc/passwd") == nil)
        #expect(BlobID("0123456789abcdef0123456789ABCDEF") == nil)
        #expect(BlobID("0123456789abcdef0123456789abcde") == nil)
        #expect(BlobID("0123456789abcdef0123456789abcdef")?.shard == "01")
        #expect(UploadID("0123456789abcdef0123456789abcde/") == nil)
        var random = SeededGenerator(seed: 12)
        let ids = (0..<100).map { _ in BlobID.random(using: &random) }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { BlobID($0.rawValue) == $0 })
    }
}
