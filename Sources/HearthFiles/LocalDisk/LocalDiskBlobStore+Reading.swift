import NIOCore
import NIOPosix

extension LocalDiskBlobStore {
    /// Streams `blobs/xx/<id>` in chunks on the thread pool, one read ahead (direct I/O past the threshold).
    public func read(_ id: BlobID, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        try await streamFile(layout.blob(id), range: range, chunk: body)
    }

    /// Opens `blobs/xx/<id>`; the open descriptor keeps the bytes readable after a delete, until the handle is released.
    public func open(_ id: BlobID) async throws -> any OpenedBlob {
        let (fd, size) = try await openWithSize(layout.blob(id), writing: false, missing: "no such blob")
        return LocalOpenedBlob(store: self, fd: fd, size: size)
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
    /// handed to `body` before the next is read. A range of at least `directIOThreshold` bytes
    /// is read with direct I/O where the file system allows it.
    func streamFile(_ path: String, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        let (fd, size) = try await openWithSize(path, writing: false, missing: "no such blob")
        defer { Posix.closeFile(fd) }
        try await stream(fd, size: size, range: range, chunk: body)
    }

    /// `streamFile` over a descriptor that is already open; the caller closes it.
    func stream(_ fd: Int32, size: Int64, range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        let range = range ?? 0..<size
        guard range.lowerBound >= 0, range.upperBound <= size else {
            throw BlobStoreError(.invalidRange, "range \(range) is outside a blob of \(size) bytes")
        }
        var direct = false
        if let threshold = configuration.directIOThreshold, Int64(range.count) >= threshold {
            direct = try await threadPool.runIfActive { Posix.setDirect(fd, true) }
        }
        guard !range.isEmpty else { return }
        let chunkSize = Int64(direct ? Posix.wholePages(configuration.directIOBufferSize) : max(configuration.readChunkSize, 1))
        let (pool, isDirect) = (threadPool, direct)
        // Direct chunks end on page boundaries even when the range starts mid-page.
        let page = Int64(isDirect ? Posix.directAlignment : 1)
        func count(at offset: Int64) -> Int { Int(min(chunkSize - offset % page, range.upperBound - offset)) }
        // One chunk ahead: the next read runs while `body` sends the current chunk (direct
        // reads get no read-ahead from the kernel, so without this the disk would wait on
        // the network and back).
        var current = try await Self.readChunk(pool, fd, count: count(at: range.lowerBound), at: range.lowerBound, direct: isDirect)
        var offset = range.lowerBound + Int64(current.readableBytes)
        while offset < range.upperBound {
            let (nextCount, nextOffset) = (count(at: offset), offset)
            async let next = Self.readChunk(pool, fd, count: nextCount, at: nextOffset, direct: isDirect)
            try await body(current)
            current = try await next
            offset += Int64(current.readableBytes)
        }
        try await body(current)
    }

    private static func readChunk(_ pool: NIOThreadPool, _ fd: Int32, count: Int, at offset: Int64, direct: Bool) async throws -> ByteBuffer {
        try await pool.runIfActive {
            try direct ? readDirect(fd, count: count, at: offset) : read(fd, count: count, at: offset)
        }
    }

    /// Exactly `count` bytes at `offset` (the file must have them).
    private static func read(_ fd: Int32, count: Int, at offset: Int64) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
            try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[..<count]), at: offset)
        }
        guard read == count else {
            throw BlobStoreError(.io, "the file ended \(count - read) bytes early")
        }
        return buffer
    }

    /// `read` for a file with direct I/O on: reads whole pages from a page boundary into a
    /// page-aligned part of the buffer and returns a view of the bytes asked for.
    private static func readDirect(_ fd: Int32, count: Int, at offset: Int64) throws -> ByteBuffer {
        let page = Posix.directAlignment
        let start = offset / Int64(page) * Int64(page)
        let skip = Int(offset - start)
        let span = (skip + count + page - 1) / page * page
        var buffer = ByteBufferAllocator().buffer(capacity: span + page)
        var lead = 0
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: span + page) { space in
            let address = Int(bitPattern: space.baseAddress!)
            lead = (page - address % page) % page
            let read = try Posix.readDirect(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[lead..<lead + span]), at: start)
            return lead + min(read, skip + count)
        }
        guard read == lead + skip + count else {
            throw BlobStoreError(.io, "the file ended \(lead + skip + count - read) bytes early")
        }
        buffer.moveReaderIndex(forwardBy: lead + skip)
        return buffer
    }

    /// Digests of a file's first `size` bytes, read back from disk.
    func digestFile(_ path: String, size: Int64) async throws -> BlobDigester {
        var digester = BlobDigester()
        try await streamFile(path, range: 0..<size) { digester.update($0) }
        return digester
    }
}

/// An open blob file. The descriptor keeps the bytes of a deleted file readable (POSIX unlink
/// semantics) and is closed when the last reference goes, so a response that is dropped before
/// its body runs cannot leak it.
final class LocalOpenedBlob: OpenedBlob {
    let store: LocalDiskBlobStore
    let fd: Int32
    let size: Int64

    init(store: LocalDiskBlobStore, fd: Int32, size: Int64) {
        self.store = store
        self.fd = fd
        self.size = size
    }

    deinit { Posix.closeFile(fd) }

    func read(range: Range<Int64>?, chunk body: (ByteBuffer) async throws -> Void) async throws {
        try await store.stream(fd, size: size, range: range, chunk: body)
    }
}
