import Crypto
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import HearthFiles

#if canImport(Glibc)
import Glibc
#endif

/// Large files go to and from disk with direct I/O past a threshold. These tests set the
/// threshold low so that small data crosses it at unaligned offsets, in every path: one-request
/// writes, resumable appends, whole and ranged reads.
@Suite("Direct I/O for large blobs")
struct DirectIOTests {
    static func open(
        _ folder: String, threshold: Int64?, bufferSize: Int, chunkSize: Int, directBufferSize: Int = 8192,
        cachedDigests: Int = 256
    ) async throws -> LocalDiskBlobStore {
        var configuration = LocalDiskBlobStore.Configuration()
        configuration.cachedUploadDigests = cachedDigests
        configuration.writeBufferSize = bufferSize
        configuration.readChunkSize = chunkSize
        configuration.directIOBufferSize = directBufferSize
        configuration.directIOThreshold = threshold
        return try await LocalDiskBlobStore(folder: folder, configuration: configuration)
    }

    /// Whether the file system under `folder` takes direct I/O (tmpfs, for one, does not; the
    /// store then stays on the page cache, which the other tests cover either way).
    static func supportsDirectIO(_ folder: String) -> Bool {
        let path = folder + "/probe"
        guard let fd = try? Posix.create(path) else { return false }
        defer {
            Posix.closeFile(fd)
            _ = try? Posix.removeFile(path)
        }
        return Posix.setDirect(fd, true)
    }

    @Test(arguments: [1000, 4096, 70_000])
    func writesCrossingTheThresholdKeepEveryByte(bufferSize: Int) async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(
            folder, threshold: 10_001, bufferSize: bufferSize, chunkSize: 5000, directBufferSize: bufferSize
        )
        var random = SeededGenerator(seed: 30)
        let data = random.bytes(150_003)
        let pieces = random.pieces(of: data.count, maxPiece: 9000).map { ByteBuffer(bytes: data[$0]) }
        let writer = try await store.makeWriter()
        for (index, piece) in pieces.enumerated() {
            try await writer.write(piece)
            if index == pieces.count / 2 || index == pieces.count - 2 {
                let written = pieces[...index].reduce(0) { $0 + $1.readableBytes }
                expectDigests(await writer.digests, of: data[..<written])
            }
        }
        let blob = try await writer.commit()
        expectDigests(blob.digests, of: data[...])
        #expect(try await store.bytes(of: blob.id).bytes == data)
    }

    @Test func rangedReadsAtUnalignedOffsets() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, threshold: 4096, bufferSize: 8192, chunkSize: 6000)
        var random = SeededGenerator(seed: 31)
        let data = random.bytes(50_001)
        let blob = try await store.write(contentsOf: stream([ByteBuffer(bytes: data)]))
        let ranges: [Range<Int>] = [0..<50_001, 1..<50_001, 4095..<4097 + 8192, 4096..<12_288, 40_000..<50_001, 12_345..<30_000]
        for range in ranges {
            let read = try await store.bytes(of: blob.id, range: Int64(range.lowerBound)..<Int64(range.upperBound))
            #expect(read.bytes == Array(data[range]), "range \(range)")
        }
        // Below the threshold the page cache serves the read; the bytes are the same.
        #expect(try await store.bytes(of: blob.id, range: 100..<200).bytes == Array(data[100..<200]))
    }

    /// With no digests cached, every append and the finalize re-read the session file, through
    /// the direct reads once it is past the threshold.
    @Test(arguments: [256, 0])
    func resumableAppendsCrossTheThresholdMidRequest(cachedDigests: Int) async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(
            folder, threshold: 20_000, bufferSize: 4096, chunkSize: 7000, cachedDigests: cachedDigests
        )
        var random = SeededGenerator(seed: 32)
        let data = random.bytes(90_017)
        let upload = try await store.startUpload()
        var offset = 0
        for end in [5_003, 33_333, 33_334, 90_017] {
            let cuts = [1, 999, 5000].filter { $0 < end - offset }
            let size = try await store.append(
                to: upload, at: Int64(offset), contentsOf: stream(buffers(Array(data[offset..<end]), cuts: cuts))
            )
            #expect(size == Int64(end))
            offset = end
        }
        let blob = try await store.finalize(upload)
        expectDigests(blob.digests, of: data[...])
        #expect(try await store.bytes(of: blob.id).bytes == data)
    }

    /// The sink really switches: aligned buffers past the threshold, and the file opened for
    /// direct I/O where the file system supports it.
    @Test func sinkSwitchesToDirectIOPastTheThreshold() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let pool = NIOThreadPool.singleton
        var sink = FileSink(
            pool: pool, path: folder + "/file", bufferSize: 4096, directThreshold: 12_000, directBufferSize: 4096
        )
        var random = SeededGenerator(seed: 33)
        let data = random.bytes(30_000)
        try await sink.append(ByteBuffer(bytes: data[..<5000]))
        try await sink.append(ByteBuffer(bytes: data[5000..<10_000]))
        #expect(!sink.isDirect)
        try await sink.append(ByteBuffer(bytes: data[10_000..<20_000]))
        #expect(sink.isDirect == (Posix.directFlag != nil))
        try await sink.append(ByteBuffer(bytes: data[20_000...]))
        _ = try await sink.digests()  // waits for the write in flight, which turns direct I/O on
        if Self.supportsDirectIO(folder), let flag = Posix.directFlag, let fd = sink.descriptor?.value {
            #expect(fcntl(fd, F_GETFL) & flag != 0)
        }
        expectDigests(try await sink.finish(sync: false).digests, of: data[...])
        #expect(FileManager.default.contents(atPath: folder + "/file") == Data(data))
    }

    /// One chunk far larger than the buffers (`store.write(_:)` of a whole ByteBuffer) still
    /// switches at the first page past the threshold rather than going through the page cache.
    @Test func oneLargeChunkSwitchesAtTheThreshold() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        var sink = FileSink(
            pool: NIOThreadPool.singleton, path: folder + "/file", bufferSize: 4096, directThreshold: 10_000,
            directBufferSize: 8192
        )
        var random = SeededGenerator(seed: 34)
        let data = random.bytes(100_001)
        try await sink.append(ByteBuffer(bytes: data))
        #expect(sink.isDirect == (Posix.directFlag != nil))
        #expect(sink.size == 100_001)
        expectDigests(try await sink.finish(sync: false).digests, of: data[...])
        #expect(FileManager.default.contents(atPath: folder + "/file") == Data(data))
    }

    /// A reader that stops mid-blob (a client gone) ends the read with its error while the next
    /// chunk is being read ahead; the store reads on normally afterwards.
    @Test func readerThrowingMidStream() async throws {
        struct Gone: Error {}
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let store = try await Self.open(folder, threshold: 4096, bufferSize: 4096, chunkSize: 4096)
        var random = SeededGenerator(seed: 35)
        let data = random.bytes(60_000)
        let blob = try await store.write(contentsOf: stream([ByteBuffer(bytes: data)]))
        var delivered = 0
        await #expect(throws: Gone.self) {
            try await store.read(blob.id, range: nil) { chunk in
                delivered += chunk.readableBytes
                if delivered > 20_000 { throw Gone() }
            }
        }
        #expect(delivered > 20_000 && delivered < 60_000)
        #expect(try await store.bytes(of: blob.id).bytes == data)
    }

    @Test func thresholdOffKeepsThePageCache() async throws {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let pool = NIOThreadPool.singleton
        var sink = FileSink(pool: pool, path: folder + "/file", bufferSize: 4096, directThreshold: nil)
        let data = Array(repeating: UInt8(7), count: 50_000)
        try await sink.append(ByteBuffer(bytes: data))
        #expect(!sink.isDirect)
        try await sink.finish(sync: false)
        #expect(FileManager.default.contents(atPath: folder + "/file") == Data(data))
    }
}
