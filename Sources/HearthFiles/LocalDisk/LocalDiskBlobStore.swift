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
        /// Size of the chunks `read` delivers. 1 MiB.
        public var readChunkSize = 1 << 20
        /// Sync files and folders (fsync) before a commit, finalize or append returns. Turn off
        /// only where losing recent writes on power failure is acceptable (tests, benchmarks).
        public var durable = true
        /// Copy blobs by hard link when the file system allows; otherwise copy the bytes.
        public var hardLinkCopies = true
        /// How many upload sessions keep their running digests in memory; others are
        /// recomputed from the session file when needed.
        public var cachedUploadDigests = 256

        /// The defaults: 1 MiB buffers and chunks, durable, hard-link copies.
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
    /// - Parameter threadPool: where blocking file calls run. Many concurrent small uploads
    ///   spend their time in fsync, so a pool with more threads than cores helps them.
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

    public func makeWriter() async throws -> any BlobWriter {
        LocalBlobWriter(
            id: BlobID.random(), layout: layout, pool: threadPool,
            bufferSize: configuration.writeBufferSize, durable: configuration.durable
        )
    }

    public func size(of id: BlobID) async throws -> Int64? {
        let path = layout.blob(id)
        return try await threadPool.runIfActive { try Posix.status(path)?.size }
    }

    @discardableResult
    public func delete(_ id: BlobID) async throws -> Bool {
        let path = layout.blob(id)
        return try await threadPool.runIfActive { try Posix.removeFile(path) }
    }
}
