import NIOCore
import NIOPosix

/// Appends bytes to one file through fixed-size buffers, so that many small chunks become a few
/// large writes and memory stays bounded whatever the total.
///
/// Double-buffered: while one full buffer is written on the thread pool, the next one fills
/// (and the caller hashes it), so disk and CPU work overlap. At most two buffers exist.
/// The file is opened lazily: a blob smaller than a buffer is written, synced and renamed in a
/// single trip to the thread pool at the end.
struct FileSink {
    let pool: NIOThreadPool
    let path: String
    let bufferSize: Int
    /// The open file, or nil until the first write (a new file is then created at `path`).
    private(set) var descriptor: FileDescriptor?
    /// File offset where the first buffered byte will go.
    private var flushed: Int64
    private var buffer = ByteBuffer()
    /// The buffer being written, and its write.
    private var inFlight: (buffer: ByteBuffer, write: PendingWrite)?

    init(pool: NIOThreadPool, path: String, bufferSize: Int, descriptor: Int32? = nil, offset: Int64 = 0) {
        self.pool = pool
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

    /// Writes what is buffered, syncs the file if asked, then runs `then` in the same job on the
    /// thread pool (one trip for the whole commit). Releases the file afterwards, even on failure.
    mutating func finish(sync: Bool, then: @escaping @Sendable () throws -> Void = {}) async throws {
        defer { close() }
        try await waitForWrite()
        let pending = buffer
        buffer = ByteBuffer()
        let (existing, path, offset) = (descriptor, self.path, flushed)
        try await pool.runIfActive {
            let file = try existing ?? FileDescriptor(Posix.create(path))
            if pending.readableBytes > 0 {
                try pending.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) }
            }
            if sync { try Posix.sync(file.value) }
            try then()
        }
        flushed += Int64(pending.readableBytes)
    }

    /// Lets go of the file; it closes once a write still in flight (if any) is done with it.
    mutating func close() {
        descriptor = nil
        inFlight = nil
    }

    /// Starts writing `bytes` once the previous write has finished; the buffer that write used
    /// becomes the next one to fill, so a long upload cycles through two buffers.
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
        let offset = flushed
        let write = PendingWrite.start(on: pool) {
            try bytes.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) }
        }
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
