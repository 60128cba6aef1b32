import Foundation
import HTTPTypes
import HearthCore
import HearthFiles
import HearthRules
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

extension StorageController {
    /// The largest metadata JSON (start of a resumable upload, PATCH bodies).
    static let maxMetadataBytes = 1 << 20

    /// Streams `chunks` into a new blob, refusing more than `limit` bytes (with `refusal`, or 413).
    func receive<Chunks: AsyncSequence>(_ chunks: Chunks, limit: Int64 = StorageService.maxObjectBytes, refusal: StorageError? = nil) async throws -> BlobInfo
    where Chunks.Element == ByteBuffer {
        let writer = try await service.blobs.makeWriter()
        do {
            var total: Int64 = 0
            for try await chunk in chunks {
                total += Int64(chunk.readableBytes)
                guard total <= limit else { throw refusal ?? StorageError.tooLarge(Int(limit)) }
                try await writer.write(chunk)
            }
            return try await writer.commit()
        } catch {
            await writer.abort()
            throw error
        }
    }

    func metadataBody(_ request: Request) async throws -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxMetadataBytes)
        } catch {
            throw StorageError.tooLarge(Self.maxMetadataBytes)
        }
        if buffer.readableBytes == 0 { return .object([]) }
        guard let json = try? JSONValue.parse(buffer.readableBytesView) else { throw StorageError.badRequest("Invalid JSON payload received.") }
        return json
    }

    /// A one-request upload of the raw body (v0 media upload, Cloud Storage `uploadType=media`).
    func mediaUpload(
        _ request: Request, bucket: String, name: String, fields: ObjectFields, caller: Caller, firebase: Bool,
        preconditions: StorageService.Preconditions
    ) async throws -> ObjectRecord {
        try await access.precheck(caller, bucket: bucket, name: name, size: request.headers[.contentLength].flatMap { Int64($0) }, fields: fields)
        let limit = access.uploadLimit(caller, bucket: bucket, name: name)
        let blob = try await receive(request.body, limit: limit.bytes, refusal: limit.refusal)
        return try await service.store(
            bucket: bucket, name: name, blob: blob, fields: fields, preconditions: preconditions, firebase: firebase,
            authorize: access.uploadAuthorizer(caller))
    }

    /// The request body, refusing bytes past `limit` (counting from `offset`) with `refusal`, or
    /// as more than the upload declared.
    func bounded(_ request: Request, from offset: Int64, limit: Int64, refusal: StorageError? = nil) -> BoundedBody {
        BoundedBody(body: request.body, start: offset, limit: limit, refusal: refusal)
    }
}

/// A request body that throws `tooLarge` once more than `limit - start` bytes arrive, so a
/// resumable session cannot grow past its declared size (or the largest object).
struct BoundedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: RequestBody
    let start: Int64
    let limit: Int64
    /// What to throw past `limit` (nil: the upload is larger than it declared).
    var refusal: StorageError?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        var position: Int64
        let limit: Int64
        let refusal: StorageError?

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            position += Int64(chunk.readableBytes)
            guard position <= limit else {
                throw refusal ?? StorageError(.invalid, "The upload is larger than its declared size (\(limit) bytes).")
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), position: start, limit: limit, refusal: refusal)
    }
}
