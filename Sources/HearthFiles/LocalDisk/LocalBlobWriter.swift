import NIOCore
import NIOPosix

/// Writes one blob to `<folder>/tmp/<id>` and renames it into `<folder>/blobs/` on commit.
///
/// An actor because it owns mutable state (the open file, the buffer and, through the sink, the
/// running digests) for the life of one upload. The sink is moved out while an operation is in
/// flight, so a second concurrent call fails with `writerClosed` instead of interleaving bytes.
actor LocalBlobWriter: BlobWriter {
    let id: BlobID
    private let layout: DiskLayout
    private let durable: Bool
    private var sink: FileSink?
    /// The blob's digests, once committed.
    private var committed: BlobDigests?
    /// True once committed or aborted (or broken by a failed write).
    private var finished = false

    init(
        id: BlobID, layout: DiskLayout, pool: NIOThreadPool, bufferSize: Int, durable: Bool,
        directThreshold: Int64?, directBufferSize: Int
    ) {
        self.id = id
        self.layout = layout
        self.durable = durable
        self.sink = FileSink(
            pool: pool, path: layout.temporary(id), bufferSize: bufferSize, directThreshold: directThreshold,
            directBufferSize: directBufferSize
        )
    }

    deinit {
        // Dropped without commit or abort: release the file now rather than at the next start.
        // (The file itself closes when the last write in flight lets go of it.)
        if let sink, sink.descriptor != nil {
            _ = try? Posix.removeFile(sink.path)
        }
    }

    /// The digests of everything written so far: of the blob once committed; empty ones if
    /// aborted, if a write failed (the writer is then closed), or if asked while a write call is
    /// in progress (which the protocol rules out).
    var digests: BlobDigests {
        get async {
            if let committed { return committed }
            guard var sink = try? takeSink() else { return .empty }
            guard let digester = try? await sink.digests() else {
                // A write in flight failed: the file has a hole, so the writer is done for
                // (the next write or commit throws `writerClosed`).
                discard(&sink)
                return .empty
            }
            if finished {
                discard(&sink)
            } else {
                self.sink = sink
            }
            return digester.digests
        }
    }

    func write(_ chunk: ByteBuffer) async throws {
        var sink = try takeSink()
        do {
            try await sink.append(chunk)
        } catch {
            discard(&sink)
            throw error
        }
        if finished {
            // Aborted from elsewhere while this write was in flight.
            discard(&sink)
            throw BlobStoreError(.writerClosed, "the blob writer was aborted")
        }
        self.sink = sink
    }

    func commit() async throws -> BlobInfo {
        var sink = try takeSink()
        finished = true
        let (layout, id, source, durable) = (layout, id, sink.path, durable)
        let digester: BlobDigester
        do {
            digester = try await sink.finish(sync: durable) {
                try layout.place(id, durable: durable) { try Posix.renameItem(source, to: layout.blob(id)) }
            }
        } catch {
            discard(&sink)
            throw error
        }
        let digests = digester.digests
        committed = digests
        return BlobInfo(id: id, digests: digests)
    }

    func abort() async {
        finished = true
        if var sink = sink.take() { discard(&sink) }
    }

    private func takeSink() throws -> FileSink {
        guard !finished, let sink = sink.take() else {
            throw BlobStoreError(.writerClosed, "the blob writer was already committed, aborted or is in use")
        }
        return sink
    }

    /// Closes and removes the temporary file; the writer is unusable afterwards.
    private func discard(_ sink: inout FileSink) {
        finished = true
        sink.close()
        _ = try? Posix.removeFile(sink.path)
    }
}
