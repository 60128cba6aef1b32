import NIOPosix

extension LocalDiskBlobStore {
    /// A new blob with the same bytes: a hard link where the file system allows (blobs are
    /// immutable, so two names for one file are safe and deleting one keeps the other), else a
    /// streamed copy through `tmp/` that is synced and renamed like any commit.
    public func copy(_ id: BlobID) async throws -> BlobID {
        let copy = BlobID.random()
        let (layout, durable, hardLink) = (layout, configuration.durable, configuration.hardLinkCopies)
        let bufferSize = max(configuration.writeBufferSize, 4096)
        try await threadPool.runIfActive {
            let (source, target) = (layout.blob(id), layout.blob(copy))
            guard try Posix.status(source) != nil else {
                throw BlobStoreError(.notFound, "no such blob")
            }
            if hardLink {
                do {
                    try layout.place(copy, durable: durable) { try Posix.hardLink(source, to: target) }
                    return
                } catch let error where Posix.isLinkUnsupported(error) {
                    // Fall through to copying the bytes.
                }
            }
            let temporary = layout.temporary(copy)
            do {
                try Self.copyBytes(from: source, to: temporary, bufferSize: bufferSize, sync: durable)
                try layout.place(copy, durable: durable) { try Posix.renameItem(temporary, to: target) }
            } catch {
                _ = try? Posix.removeFile(temporary)
                throw error
            }
        }
        return copy
    }

    /// Copies a whole file through one reused buffer. Runs on the thread pool.
    static func copyBytes(from source: String, to target: String, bufferSize: Int, sync: Bool) throws {
        guard let input = try Posix.openFile(source, writing: false) else {
            throw BlobStoreError(.notFound, "no such blob")
        }
        defer { Posix.closeFile(input) }
        let output = try Posix.create(target)
        defer { Posix.closeFile(output) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let count = try Posix.read(input, into: buffer, at: offset)
            if count == 0 { break }
            try Posix.writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: offset)
            offset += Int64(count)
        }
        if sync { try Posix.sync(output) }
    }
}
