public import NIOCore

extension BlobStore {
    /// Streams a whole blob to `body`.
    public func read(_ id: BlobID, chunk body: (ByteBuffer) async throws -> Void) async throws {
        try await read(id, range: nil, chunk: body)
    }

    /// Collects a blob (or a range of it) into one buffer: for small blobs and tests only,
    /// since it holds everything in memory.
    public func bytes(of id: BlobID, range: Range<Int64>? = nil) async throws -> ByteBuffer {
        var all = ByteBuffer()
        try await read(id, range: range) { chunk in
            var chunk = chunk
            all.writeBuffer(&chunk)
        }
        return all
    }

    /// Stores `chunks` as a new blob: committed if the sequence ends normally, aborted (nothing
    /// left behind) if it throws.
    public func write<Chunks: AsyncSequence>(
        contentsOf chunks: Chunks
    ) async throws -> BlobInfo where Chunks.Element == ByteBuffer {
        let writer = try await makeWriter()
        do {
            for try await chunk in chunks {
                try await writer.write(chunk)
            }
            return try await writer.commit()
        } catch {
            await writer.abort()
            throw error
        }
    }

    /// Stores bytes already in memory as a new blob.
    public func write(_ buffer: ByteBuffer) async throws -> BlobInfo {
        let writer = try await makeWriter()
        do {
            try await writer.write(buffer)
            return try await writer.commit()
        } catch {
            await writer.abort()
            throw error
        }
    }
}
