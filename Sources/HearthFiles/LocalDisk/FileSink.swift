import NIOCore
import NIOPosix
import Synchronization

/// Appends bytes to one file through fixed-size buffers, so that many small chunks become a few
/// large writes and memory stays bounded whatever the total, and digests every byte appended.
///
/// Double-buffered: while one full buffer is written and hashed on the thread pool (two jobs
/// side by side), the next one fills, so the copy, the hashing and the disk overlap. At most two
/// buffers exist. Hashing used to happen on the appending task, in line with the copy; MD5 alone
/// runs at ~550 MB/s per core here, so it capped a single upload well below the disk's speed.
/// The file is opened lazily: a blob smaller than a buffer is written, synced and renamed in a
/// single trip to the thread pool at the end.
struct FileSink {
    let pool: NIOThreadPool
    let path: String
    let bufferSize: Int
    /// Digests of the bytes handed to the pool so far (the buffered ones are not in it yet).
    private let hashed: HashedBytes
    /// The open file, or nil until the first write (a new file is then created at `path`).
    private(set) var descriptor: FileDescriptor?
    /// File offset where the first buffered byte will go.
    private var flushed: Int64
    private var buffer = ByteBuffer()
    /// The buffer being written, and its write.
    private var inFlight: (buffer: ByteBuffer, write: PendingWrite)?

    /// A sink appending at `offset` of `descriptor` (or to a new file at `path`), whose digests
    /// continue from `digester` (the digests of the file's first `offset` bytes).
    init(
        pool: NIOThreadPool, path: String, bufferSize: Int, descriptor: Int32? = nil, offset: Int64 = 0,
        digester: BlobDigester = BlobDigester()
    ) {
        self.pool = pool
        self.hashed = HashedBytes(digester)
        self.path = path
        self.bufferSize = max(bufferSize, 1)
        self.descriptor = descriptor.map(FileDescriptor.init)
        self.flushed = offset
    }

    /// Everything appended so far, written or still buffered.
    var size: Int64 { flushed + Int64(buffer.readableBytes) }

    mutating func append(_ chunk: ByteBuffer) async throws {
        if buffer.readableBytes == 0 && chunk.readableBytes >= bufferSize {
            try await submit(chunk)
            return
        }
        var chunk = chunk
        buffer.writeBuffer(&chunk)
        if buffer.readableBytes >= bufferSize {
            try await submit(buffer)
        }
    }

    /// Digests of everything appended so far, written or still buffered (appending may go on).
    mutating func digests() async throws -> BlobDigester {
        try await waitForWrite()
        var digester = hashed.value
        digester.update(buffer)
        return digester
    }

    /// Writes and hashes what is buffered, syncs the file if asked, then runs `then` in the same
    /// job on the thread pool (one trip for the whole commit), and returns the digests of
    /// everything appended. Releases the file afterwards, even on failure.
    @discardableResult
    mutating func finish(sync: Bool, then: @escaping @Sendable () throws -> Void = {}) async throws -> BlobDigester {
        defer { close() }
        try await waitForWrite()
        let pending = buffer
        buffer = ByteBuffer()
        let (existing, path, offset, hashed) = (descriptor, self.path, flushed, hashed)
        try await pool.runIfActive {
            let file = try existing ?? FileDescriptor(Posix.create(path))
            if pending.readableBytes > 0 {
                try pending.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) }
                hashed.update(pending)
            }
            if sync { try Posix.sync(file.value) }
            try then()
        }
        flushed += Int64(pending.readableBytes)
        return hashed.value
    }

    /// Lets go of the file; it closes once a write still in flight (if any) is done with it.
    mutating func close() {
        descriptor = nil
        inFlight = nil
    }

    /// Starts writing and hashing `bytes` once the previous buffer is done; the buffer that
    /// write used becomes the next one to fill, so a long upload cycles through two buffers.
    private mutating func submit(_ bytes: ByteBuffer) async throws {
        let recycled = try await waitForWrite()
        let file: FileDescriptor
        if let descriptor {
            file = descriptor
        } else {
            let path = self.path
            file = try await pool.runIfActive { try FileDescriptor(Posix.create(path)) }
            descriptor = file
        }
        let (offset, hashed) = (flushed, hashed)
        // Hashing waits for the previous buffer's (above), so the digests see bytes in order.
        let write = PendingWrite.start(on: pool, [
            { try bytes.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) } },
            { hashed.update(bytes) },
        ])
        flushed += Int64(bytes.readableBytes)
        inFlight = (bytes, write)
        buffer = recycled ?? ByteBuffer()
    }

    /// Waits for the write in flight, if any, and returns its buffer emptied for reuse (its
    /// memory is ours alone again once the job has let go of it; if not yet, the next write
    /// into it simply allocates).
    @discardableResult
    private mutating func waitForWrite() async throws -> ByteBuffer? {
        guard let (written, write) = inFlight else { return nil }
        inFlight = nil
        try await write.wait()
        var reusable = written
        reusable.clear()
        return reusable
    }
}

/// The running digests of a sink, updated by the pool job hashing each buffer. Jobs never
/// overlap (each starts after the previous buffer's jobs ended); the lock only hands the value
/// safely from one pool thread to the next and back to the sink.
final class HashedBytes: Sendable {
    private let digester: Mutex<BlobDigester>

    init(_ digester: BlobDigester) {
        self.digester = Mutex(digester)
    }

    var value: BlobDigester { digester.withLock { $0 } }

    func update(_ bytes: ByteBuffer) {
        digester.withLock { $0.update(bytes) }
    }
}
