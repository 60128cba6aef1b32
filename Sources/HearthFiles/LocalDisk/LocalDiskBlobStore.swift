public import NIOPosix

/// Blobs as files in a folder on local disk: the embedded default.
///
/// - Uploads stream into `<folder>/tmp/<id>` through a fixed-size buffer and are renamed into
///   `<folder>/blobs/<xx>/<id>` on commit, after syncing the file; the shard folder is synced
///   after the rename. A crash at any point leaves either the whole blob or no blob, never part
///   of one; leftovers in `tmp/` are removed when the store opens.
/// - Downloads read fixed-size chunks, so memory stays flat whatever the blob size.
/// - Resumable sessions are files in `<folder>/uploads/`, synced after every append; their
///   running digests are kept in memory and recomputed from the file after a restart.
/// - Copies are hard links when the file system allows (blobs are never modified in place).
///
/// All blocking calls run on a NIO thread pool. File names are generated ids, never object
/// names. Open one store per folder per process: opening a second one clears the first's
/// uploads in progress (which is what makes restarts clean).
///
/// ```swift
/// let store = try await LocalDiskBlobStore(folder: dataFolder + "/storage")
/// let blob = try await store.write(ByteBuffer(string: "hello"))
/// print(blob.digests.md5Base64, blob.digests.crc32cBase64)
/// ```
public struct LocalDiskBlobStore: BlobStore {
    /// Tuning and durability settings; the defaults suit a server.
    public struct Configuration: Sendable {
        /// Bytes gathered before one write to disk, and the most a writer buffers. 1 MiB.
        public var writeBufferSize = 1 << 20
        /// Size of the chunks `read` delivers through the page cache. 1 MiB.
        public var readChunkSize = 1 << 20
        /// Sync files and folders (fsync) before a commit, finalize or append returns. Turn off
        /// only where losing recent writes on power failure is acceptable (tests, benchmarks).
        public var durable = true
        /// Copy blobs by hard link when the file system allows; otherwise copy the bytes.
        public var hardLinkCopies = true
        /// How many upload sessions keep their running digests in memory; others are
        /// recomputed from the session file when needed.
        public var cachedUploadDigests = 256
        /// Files larger than this are written (past this many bytes) and read with direct I/O
        /// (`O_DIRECT`, Linux only), bypassing the page cache; nil turns it off. 8 MiB.
        ///
        /// A large object streamed through the page cache evicts what small objects and the
        /// database need from it, and it needs a page-cache page per 4 KiB: on a VM that hands
        /// freed memory back to its host (free page reporting, as the machine measured in
        /// docs/benchmarks.md), each of those is a fault to the host, and a buffered 1 GiB
        /// write or cold read there runs at ~240 MB/s against 0.6–1.2 GB/s direct. Object
        /// stores such as MinIO bypass the cache for large objects for the first reason.
        /// File systems without direct I/O (tmpfs) fall back to the page cache by themselves.
        public var directIOThreshold: Int64? = 8 << 20
        /// The buffers direct writes fill and the chunks direct reads deliver, rounded up to
        /// whole 4 KiB pages. 4 MiB: with two in flight per transfer, uploads and downloads of
        /// 1 GiB ran 5–60 % faster than with 1 MiB here (docs/benchmarks.md).
        public var directIOBufferSize = 4 << 20

        /// The defaults: 1 MiB buffers and chunks, direct I/O past 8 MiB in 4 MiB buffers,
        /// durable, hard-link copies.
        public init() {}
    }

    /// The folder holding `blobs/`, `tmp/` and `uploads/`.
    public var folder: String { layout.root }
    /// The settings the store was opened with.
    public let configuration: Configuration
    let layout: DiskLayout
    let threadPool: NIOThreadPool
    let sessions: UploadSessions

    /// Opens (creating if needed) a store in `folder` and removes temporary files left by a
    /// previous run.
    ///
    /// - Parameters:
    ///   - folder: the store's root; `blobs/`, `tmp/` and `uploads/` are created inside it.
    ///   - configuration: buffer sizes, syncing and direct I/O settings.
    ///   - threadPool: where blocking file calls run. Many concurrent small uploads
    ///     spend their time in fsync, so a pool with more threads than cores helps them.
    public init(
        folder: String, configuration: Configuration = Configuration(), threadPool: NIOThreadPool = .singleton
    ) async throws {
        let layout = DiskLayout(root: folder)
        self.layout = layout
        self.configuration = configuration
        self.threadPool = threadPool
        self.sessions = UploadSessions(capacity: configuration.cachedUploadDigests)
        let durable = configuration.durable
        try await threadPool.runIfActive {
            try Posix.makeFolders(layout.root)
            var created = false
            for folder in [layout.blobs, layout.temporary, layout.uploads] {
                created = try Posix.makeFolder(folder) || created
            }
            if created && durable { try Posix.syncFolder(layout.root) }
            for name in try Posix.list(layout.temporary) {
                _ = try? Posix.removeFile(layout.temporary + "/" + name)
            }
        }
    }

    /// A writer that streams into `tmp/` through two buffers and renames into `blobs/xx/` on commit.
    public func makeWriter() async throws -> any BlobWriter {
        LocalBlobWriter(
            id: BlobID.random(), layout: layout, pool: threadPool,
            bufferSize: configuration.writeBufferSize, durable: configuration.durable,
            directThreshold: configuration.directIOThreshold, directBufferSize: configuration.directIOBufferSize
        )
    }

    /// The size of `blobs/xx/<id>`, or nil when absent.
    public func size(of id: BlobID) async throws -> Int64? {
        let path = layout.blob(id)
        return try await threadPool.runIfActive { try Posix.status(path)?.size }
    }

    /// Removes `blobs/xx/<id>`; false when absent. Readers holding it open keep their bytes.
    @discardableResult
    public func delete(_ id: BlobID) async throws -> Bool {
        let path = layout.blob(id)
        return try await threadPool.runIfActive { try Posix.removeFile(path) }
    }
}
