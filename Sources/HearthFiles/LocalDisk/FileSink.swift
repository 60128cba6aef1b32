import Crypto
import NIOCore
import NIOPosix
import Synchronization

/// Appends bytes to one file through fixed-size buffers, so that many small chunks become a few
/// large writes and memory stays bounded whatever the total, and digests every byte appended.
///
/// Double-buffered: while one full buffer is written and hashed on the thread pool (three jobs
/// side by side: the write, MD5, CRC-32C), the next one fills, so the copy, the hashing and the
/// disk overlap. At most two buffers exist. (Hashing on the appending task, in line with the
/// copy, capped one upload at about MD5's speed, ~550 MB/s per core here.)
/// The file is opened lazily: a blob smaller than a buffer is written, synced and renamed in a
/// single trip to the thread pool at the end.
///
/// Past `directThreshold` bytes the sink switches to direct I/O (`O_DIRECT`, no page cache):
/// page-aligned buffers written at page-aligned offsets, the unaligned tail through the page
/// cache at the end. See `LocalDiskBlobStore.Configuration.directIOThreshold` for why.
///
/// Move a sink, never copy one that goes on appending: copies share the running digests.
struct FileSink {
    let pool: NIOThreadPool
    let path: String
    let bufferSize: Int
    /// Digests of the bytes handed to the pool so far (the buffered ones are not in it yet).
    private let hashed: HashedBytes
    /// The file size past which writes go direct; nil once switched (or never to switch).
    private var directThreshold: Int64?
    /// The size of the aligned buffers once direct (whole pages).
    let directBufferSize: Int
    /// The open file, or nil until the first write (a new file is then created at `path`).
    private(set) var descriptor: FileDescriptor?
    /// File offset where the first buffered byte will go.
    private var flushed: Int64
    /// The buffer filling, before the switch to direct I/O.
    private var buffer = ByteBuffer()
    /// The buffer filling after it, and how many of its bytes are filled.
    private var direct: (buffer: AlignedBuffer, used: Int, turnedOn: Bool)?
    /// The buffer being written, and its write.
    private var inFlight: (write: PendingWrite, bytes: ByteBuffer?, aligned: AlignedBuffer?)?

    /// A sink appending at `offset` of `descriptor` (or to a new file at `path`), whose digests
    /// continue from `digester` (the digests of the file's first `offset` bytes).
    init(
        pool: NIOThreadPool, path: String, bufferSize: Int, descriptor: Int32? = nil, offset: Int64 = 0,
        digester: BlobDigester = BlobDigester(), directThreshold: Int64? = nil, directBufferSize: Int = 4 << 20
    ) {
        self.pool = pool
        self.hashed = HashedBytes(digester)
        self.path = path
        self.bufferSize = max(bufferSize, 1)
        self.descriptor = descriptor.map(FileDescriptor.init)
        self.flushed = offset
        self.directThreshold = Posix.directFlag == nil ? nil : directThreshold
        self.directBufferSize = Posix.wholePages(directBufferSize)
    }

    /// Everything appended so far, written or still buffered.
    var size: Int64 { flushed + Int64(direct?.used ?? buffer.readableBytes) }

    /// True once writes go direct (tests).
    var isDirect: Bool { direct != nil }

    mutating func append(_ chunk: ByteBuffer) async throws {
        if direct != nil {
            try await appendDirect(chunk)
            return
        }
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
        if let direct {
            digester.update(direct.buffer.bytes(direct.used))
        } else {
            digester.update(buffer)
        }
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
        let tail = direct.map { ($0.buffer, $0.used) }
        let (existing, path, offset, hashed) = (descriptor, self.path, flushed, hashed)
        try await pool.runIfActive {
            let file = try existing ?? FileDescriptor(Posix.create(path))
            if let (aligned, used) = tail {
                // The tail is not a whole number of pages: it goes through the page cache.
                _ = Posix.setDirect(file.value, false)
                try Posix.writeAll(file.value, aligned.bytes(used), at: offset)
                hashed.update(aligned.bytes(used))
            } else if pending.readableBytes > 0 {
                try pending.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) }
                hashed.update(pending)
            }
            if sync { try Posix.sync(file.value) }
            try then()
        }
        flushed += Int64(tail?.1 ?? pending.readableBytes)
        return hashed.value
    }

    /// Lets go of the file; it closes once a write still in flight (if any) is done with it.
    mutating func close() {
        descriptor = nil
        inFlight = nil
        direct = nil
    }

    /// Starts writing and hashing `bytes` once the previous buffer is done; the buffer that
    /// write used becomes the next one to fill, so a long upload cycles through two buffers.
    private mutating func submit(_ bytes: ByteBuffer) async throws {
        let recycled = try await waitForWrite()?.bytes
        let file = try await openFile()
        var bytes = bytes
        var carried: ByteBuffer?
        let page = Int64(Posix.directAlignment)
        if let threshold = directThreshold,
            case let boundary = (max(flushed, threshold) + page - 1) / page * page,
            boundary < flushed + Int64(bytes.readableBytes)
        {
            // Write up to the first page boundary past the threshold through the page cache;
            // the rest (however large this one chunk is) goes through aligned buffers, so
            // every later write is whole pages at page offsets.
            let cut = Int(boundary - flushed)
            directThreshold = nil
            carried = bytes.getSlice(at: bytes.readerIndex + cut, length: bytes.readableBytes - cut)
            bytes = bytes.getSlice(at: bytes.readerIndex, length: cut)!
        }
        let (offset, hashed, written) = (flushed, hashed, bytes)
        // Hashing waits for the previous buffer's (above), so the digests see bytes in order.
        let write = PendingWrite.start(
            on: pool,
            [{ try written.withUnsafeReadableBytes { try Posix.writeAll(file.value, $0, at: offset) } }]
                + hashed.jobs(written)
        )
        flushed += Int64(bytes.readableBytes)
        inFlight = (write, bytes, nil)
        guard let carried else {
            buffer = recycled ?? ByteBuffer()
            return
        }
        buffer = ByteBuffer()
        direct = (AlignedBuffer(capacity: directBufferSize), 0, false)
        try await appendDirect(carried)
    }

    /// Copies `chunk` into the aligned buffer, writing each buffer as it fills.
    private mutating func appendDirect(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        while chunk.readableBytes > 0, let (aligned, used, _) = direct {
            let count = min(chunk.readableBytes, aligned.capacity - used)
            chunk.readWithUnsafeReadableBytes { source in
                aligned.copy(from: UnsafeRawBufferPointer(rebasing: source[..<count]), at: used)
                return count
            }
            direct?.used = used + count
            if used + count == aligned.capacity {
                try await submitDirect()
            }
        }
    }

    /// Starts the direct write of the full aligned buffer (and its hashing) and fills the other.
    private mutating func submitDirect() async throws {
        guard let (full, used, turnedOn) = direct else { return }
        let recycled = try await waitForWrite()?.aligned
        let file = try await openFile()
        let (offset, hashed) = (flushed, hashed)
        let write = PendingWrite.start(
            on: pool,
            [
                {
                    if !turnedOn { _ = Posix.setDirect(file.value, true) }
                    try Posix.writeAllDirect(file.value, full.bytes(used), at: offset)
                }
            ] + hashed.jobs { full.bytes(used) }
        )
        flushed += Int64(used)
        inFlight = (write, nil, full)
        direct = (recycled ?? AlignedBuffer(capacity: full.capacity), 0, true)
    }

    private mutating func openFile() async throws -> FileDescriptor {
        if let descriptor { return descriptor }
        let path = self.path
        let file = try await pool.runIfActive { try FileDescriptor(Posix.create(path)) }
        descriptor = file
        return file
    }

    /// Waits for the write in flight, if any, and returns its buffer for reuse: a ByteBuffer
    /// emptied (its memory is ours alone again once the job has let go of it; if not yet, the
    /// next write into it simply allocates), or the aligned buffer, which the jobs only read.
    @discardableResult
    private mutating func waitForWrite() async throws -> (bytes: ByteBuffer?, aligned: AlignedBuffer?)? {
        guard let (write, bytes, aligned) = inFlight else { return nil }
        inFlight = nil
        try await write.wait()
        var reusable = bytes
        reusable?.clear()
        return (reusable, aligned)
    }
}

/// The running digests of a sink, MD5 and CRC-32C apart so that the two hash each buffer on
/// different pool threads (MD5 alone runs at ~550 MB/s per core here, CRC-32C about four times
/// faster; in one job they ran one after the other). Jobs for one buffer start only after the
/// previous buffer's ended; the locks hand the values safely from thread to thread.
final class HashedBytes: Sendable {
    /// Its MD5 and size are current; its CRC-32C is not used.
    private let md5: Mutex<BlobDigester>
    private let crc: Mutex<CRC32C>

    init(_ digester: BlobDigester) {
        md5 = Mutex(digester)
        crc = Mutex(digester.crc)
    }

    var value: BlobDigester {
        var digester = md5.withLock { $0 }
        digester.crc = crc.withLock { $0 }
        return digester
    }

    /// The two jobs that hash `bytes` (the buffer must stay unchanged until both ended).
    func jobs(_ bytes: @escaping @Sendable () -> UnsafeRawBufferPointer) -> [@Sendable () throws -> Void] {
        [{ self.updateMD5(bytes()) }, { self.updateCRC(bytes()) }]
    }

    func jobs(_ buffer: ByteBuffer) -> [@Sendable () throws -> Void] {
        [
            { buffer.withUnsafeReadableBytes { self.updateMD5($0) } },
            { buffer.withUnsafeReadableBytes { self.updateCRC($0) } },
        ]
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        updateMD5(bytes)
        updateCRC(bytes)
    }

    func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    private func updateMD5(_ bytes: UnsafeRawBufferPointer) {
        md5.withLock {
            $0.md5.update(bufferPointer: bytes)
            $0.size += Int64(bytes.count)
        }
    }

    private func updateCRC(_ bytes: UnsafeRawBufferPointer) {
        crc.withLock { $0.update(bytes) }
    }
}

/// Page-aligned memory for direct I/O, freed with the last reference.
///
/// Unchecked Sendable because ownership passes hands rather than being shared: the sink fills
/// it, then hands it to the pool jobs that write and hash it, and fills it again only after
/// all of them ended (`PendingWrite.wait`, whose lock orders the accesses).
final class AlignedBuffer: @unchecked Sendable {
    let capacity: Int
    private let memory: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        self.capacity = capacity
        memory = .allocate(byteCount: capacity, alignment: Posix.directAlignment)
    }

    deinit {
        memory.deallocate()
    }

    /// The first `count` bytes.
    func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: memory[..<count])
    }

    func copy(from source: UnsafeRawBufferPointer, at offset: Int) {
        (memory.baseAddress! + offset).copyMemory(from: source.baseAddress!, byteCount: source.count)
    }
}
