import NIOCore
import NIOPosix

extension LocalDiskBlobStore {
    public func read(_ id: BlobID, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        try await streamFile(layout.blob(id), range: range, chunk: body)
    }

    /// Opens `path` on the thread pool and returns the descriptor with the file's size; a missing
    /// file is `notFound` with `missing` as its message. The caller closes the descriptor.
    func openWithSize(_ path: String, writing: Bool, missing: String) async throws -> (Int32, Int64) {
        let opened = try await threadPool.runIfActive { () -> (Int32, Int64)? in
            guard let fd = try Posix.openFile(path, writing: writing) else { return nil }
            do {
                return (fd, try Posix.size(fd))
            } catch {
                Posix.closeFile(fd)
                throw error
            }
        }
        guard let opened else { throw BlobStoreError(.notFound, missing) }
        return opened
    }

    /// Reads a file in chunks of `readChunkSize`, one thread-pool trip per chunk, each chunk
    /// handed to `body` before the next is read.
    func streamFile(_ path: String, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        let (fd, size) = try await openWithSize(path, writing: false, missing: "no such blob")
        defer { Posix.closeFile(fd) }
        let range = range ?? 0..<size
        guard range.lowerBound >= 0, range.upperBound <= size else {
            throw BlobStoreError(.invalidRange, "range \(range) is outside a blob of \(size) bytes")
        }
        let chunkSize = Int64(max(configuration.readChunkSize, 1))
        var offset = range.lowerBound
        while offset < range.upperBound {
            let (count, at) = (Int(min(chunkSize, range.upperBound - offset)), offset)
            let chunk = try await threadPool.runIfActive {
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
                    try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[..<count]), at: at)
                }
                guard read == count else {
                    throw BlobStoreError(.io, "the file ended \(count - read) bytes early")
                }
                return buffer
            }
            offset += Int64(count)
            try await body(chunk)
        }
    }

    /// Digests of a file's first `size` bytes, read back from disk.
    func digestFile(_ path: String, size: Int64) async throws -> BlobDigester {
        var digester = BlobDigester()
        try await streamFile(path, range: 0..<size) { digester.update($0) }
        return digester
    }
}
