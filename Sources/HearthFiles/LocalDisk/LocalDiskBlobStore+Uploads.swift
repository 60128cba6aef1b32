public import Foundation
public import NIOCore
import NIOPosix

extension LocalDiskBlobStore {
    /// Creates an empty file in `uploads/` (synced with its folder when durable) and returns its id.
    public func startUpload() async throws -> UploadID {
        let id = UploadID.random()
        let (path, folder, durable) = (layout.upload(id), layout.uploads, configuration.durable)
        try await threadPool.runIfActive {
            let fd = try Posix.create(path)
            defer { Posix.closeFile(fd) }
            if durable {
                try Posix.sync(fd)
                try Posix.syncFolder(folder)
            }
        }
        return id
    }

    /// Appends to the session file and syncs it before returning. Throws ``BlobStoreError/Code-swift.struct/uploadBusy`` while another request uses the same session.
    public func append<Chunks: AsyncSequence>(
        to upload: UploadID, at offset: Int64, contentsOf chunks: Chunks
    ) async throws -> Int64 where Chunks.Element == ByteBuffer {
        let cached = try await sessions.checkOut(upload)
        var digester: BlobDigester?
        do {
            let size = try await appendLocked(upload, offset, chunks, cached: cached, digester: &digester)
            await sessions.checkIn(upload, digester: digester)
            return size
        } catch {
            await sessions.checkIn(upload, digester: digester)
            throw error
        }
    }

    /// The body of `append`, run while holding the session. Leaves in `digester` the digests of
    /// exactly the bytes in the file, or nil when that is not known (then they are recomputed).
    private func appendLocked<Chunks: AsyncSequence>(
        _ upload: UploadID, _ offset: Int64, _ chunks: Chunks, cached: BlobDigester?, digester: inout BlobDigester?
    ) async throws -> Int64 where Chunks.Element == ByteBuffer {
        let path = layout.upload(upload)
        let (fd, size) = try await openWithSize(path, writing: true, missing: "no such upload session")
        let running: BlobDigester
        do {
            running = try await cached?.size == size ? cached! : digestFile(path, size: size)
        } catch {
            Posix.closeFile(fd)
            throw error
        }
        var sink = FileSink(
            pool: threadPool, path: path, bufferSize: configuration.writeBufferSize, descriptor: fd, offset: size,
            digester: running, directThreshold: configuration.directIOThreshold,
            directBufferSize: configuration.directIOBufferSize
        )
        defer { sink.close() }
        guard offset <= size else {
            digester = running
            throw BlobStoreError(.offsetGap, "the upload has \(size) bytes; an append cannot start at \(offset)")
        }
        var skip = size - offset
        var iterator = chunks.makeAsyncIterator()
        while true {
            let next: ByteBuffer?
            do {
                next = try await iterator.next()
            } catch {
                // The client went away mid-request: what arrived is valid data at a known offset.
                // (If finishing fails too, the digests are recomputed from the file next time;
                // the error to report is still the request's.)
                digester = try? await sink.finish(sync: configuration.durable)
                throw error
            }
            guard var chunk = next else { break }
            if skip > 0 {
                let resent = Int(min(skip, Int64(chunk.readableBytes)))
                chunk.moveReaderIndex(forwardBy: resent)
                skip -= Int64(resent)
            }
            guard chunk.readableBytes > 0 else { continue }
            try await sink.append(chunk)
        }
        digester = try await sink.finish(sync: configuration.durable)
        return sink.size
    }

    /// The size of the session file, or nil when there is none.
    public func uploadSize(_ upload: UploadID) async throws -> Int64? {
        let path = layout.upload(upload)
        return try await threadPool.runIfActive { try Posix.status(path)?.size }
    }

    /// Renames the session file into `blobs/` as the blob with the same digits. Digests come from the cache when they cover every byte, else from one read of the file. A repeated finalize returns the same blob.
    public func finalize(_ upload: UploadID) async throws -> BlobInfo {
        let cached = try await sessions.checkOut(upload)
        do {
            let blob = try await finalizeLocked(upload, cached: cached)
            await sessions.checkIn(upload, digester: nil)
            return blob
        } catch {
            await sessions.checkIn(upload, digester: cached)
            throw error
        }
    }

    private func finalizeLocked(_ upload: UploadID, cached: BlobDigester?) async throws -> BlobInfo {
        let (path, id, layout, durable) = (layout.upload(upload), upload.blobID, layout, configuration.durable)
        guard let status = try await threadPool.runIfActive({ try Posix.status(path) }) else {
            // Finalized before (a retry after a lost response or a crash): answer the same again.
            guard let size = try await size(of: id) else {
                throw BlobStoreError(.notFound, "no such upload session")
            }
            return BlobInfo(id: id, digests: try await digestFile(layout.blob(id), size: size).digests)
        }
        let digester = try await cached?.size == status.size ? cached! : digestFile(path, size: status.size)
        // Appends synced the file already; only the rename needs to become durable.
        try await threadPool.runIfActive {
            try layout.place(id, durable: durable) { try Posix.renameItem(path, to: layout.blob(id)) }
        }
        return BlobInfo(id: id, digests: digester.digests)
    }

    /// Removes the session file and its cached digests; false if there was no file.
    @discardableResult
    public func cancel(_ upload: UploadID) async throws -> Bool {
        await sessions.forget(upload)
        let path = layout.upload(upload)
        return try await threadPool.runIfActive { try Posix.removeFile(path) }
    }

    /// Removes session files last modified before `cutoff` (compared in whole seconds), skipping sessions in use.
    public func removeUploads(notModifiedSince cutoff: Date) async throws -> Int {
        let busy = await sessions.busySessions
        let (layout, limit) = (layout, Int64(cutoff.timeIntervalSince1970.rounded(.down)))
        let removed = try await threadPool.runIfActive { () -> [UploadID] in
            var removed: [UploadID] = []
            for name in try Posix.list(layout.uploads) {
                guard let id = UploadID(name), !busy.contains(id) else { continue }
                let path = layout.upload(id)
                if let status = try Posix.status(path), status.modified < limit, try Posix.removeFile(path) {
                    removed.append(id)
                }
            }
            return removed
        }
        for id in removed { await sessions.forget(id) }
        return removed.count
    }
}
