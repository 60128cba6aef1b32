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
    /// The largest object Hearth accepts (5 TiB is Cloud Storage's; a single server is smaller).
    static let maxObjectBytes: Int64 = 64 * 1024 * 1024 * 1024
    /// The largest metadata JSON (start of a resumable upload, PATCH bodies).
    static let maxMetadataBytes = 1 << 20

    /// Streams `chunks` into a new blob, refusing more than `limit` bytes (with `refusal`, or 413).
    func receive<Chunks: AsyncSequence>(_ chunks: Chunks, limit: Int64 = maxObjectBytes, refusal: StorageError? = nil) async throws -> BlobInfo
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
        try await precheck(caller, bucket: bucket, name: name, size: request.headers[.contentLength].flatMap { Int64($0) }, fields: fields)
        let limit = uploadLimit(caller, bucket: bucket, name: name)
        let blob = try await receive(request.body, limit: limit.bytes, refusal: limit.refusal)
        return try await service.store(
            bucket: bucket, name: name, blob: blob, fields: fields, preconditions: preconditions, firebase: firebase,
            authorize: uploadAuthorizer(caller))
    }

    /// Refuses an upload the rules would refuse before reading its bytes. With the size declared,
    /// the rules see it; without, the upload is refused only if neither an empty nor a maximal
    /// object would pass (so a signed-out writer is stopped at once, a size rule waits for the bytes).
    func precheck(_ caller: Caller, bucket: String, name: String, size: Int64?, fields: ObjectFields) async throws {
        if case .admin = caller { return }
        try StorageService.checkName(name)
        let existing = try await service.object(bucket: bucket, name: name)
        func check(_ size: Int64) throws {
            try authorize(
                caller, existing == nil ? .create : .update, bucket: bucket, name: name,
                resource: plannedObject(bucket: bucket, name: name, size: size, fields: fields), existing: existing)
        }
        if let size { return try check(size) }
        do {
            try check(0)
        } catch {
            try check(Self.maxObjectBytes)
        }
    }

    /// The most bytes the rules could let `caller` store at `name`, and what to answer past them
    /// (the rules' denial; nil when the limit is the largest object). The bound is read from the
    /// rules' size conditions (``StorageRules/uploadSizeBound(bucket:objectName:)``), so an upload
    /// without a declared length stops at the first byte no rule could accept instead of filling
    /// the disk up to the largest object first.
    func uploadLimit(_ caller: Caller, bucket: String, name: String) -> (bytes: Int64, refusal: StorageError?) {
        guard caller != .admin, let bound = rules.current.uploadSizeBound(bucket: bucket, objectName: name), bound < Self.maxObjectBytes
        else { return (Self.maxObjectBytes, nil) }
        return (max(bound, 0), StorageError.forbidden("Permission denied. No WRITE permission."))
    }

    /// The request body, refusing bytes past `limit` (counting from `offset`) with `refusal`, or
    /// as more than the upload declared.
    func bounded(_ request: Request, from offset: Int64, limit: Int64, refusal: StorageError? = nil) -> BoundedBody {
        BoundedBody(body: request.body, start: offset, limit: limit, refusal: refusal)
    }

    // MARK: Resumable sessions (both protocols)

    func startSession(_ session: UploadSession) async throws -> UploadID {
        if service.sweepDue(now: session.created) {
            // Sessions nobody touched for a week go, files and records (Cloud Storage's expiry).
            _ = try? await service.blobs.removeUploads(notModifiedSince: Date(timeIntervalSince1970: Double(session.created) / 1000 - 7 * 86_400))
        }
        let id = try await service.blobs.startUpload()
        let data = try JSONEncoder().encode(session)
        try await service.catalog.transaction { tx in
            try tx.deleteUploads(createdBefore: session.created - 7 * 24 * 3_600_000)
            try tx.saveUpload(id.rawValue, data: data, created: session.created)
        }
        return id
    }

    /// The session `id`, if it was started through the same API on the same bucket (a session
    /// URL cannot be replayed against another bucket or the other API).
    func session(_ id: String, firebase: Bool, bucket: String) async throws -> (UploadID, UploadSession) {
        guard let upload = UploadID(id), let data = try await service.catalog.read({ tx in try tx.upload(id) }),
            let session = try? JSONDecoder().decode(UploadSession.self, from: data), session.firebase == firebase, session.bucket == bucket
        else { throw StorageError.notFound("No such upload: \(id)") }
        return (upload, session)
    }

    func saveSession(_ id: UploadID, _ session: UploadSession) async throws {
        let data = try JSONEncoder().encode(session)
        try await service.catalog.transaction { tx in try tx.saveUpload(id.rawValue, data: data, created: session.created) }
    }

    /// Turns a session's bytes into the object (rules checked as for a one-shot upload).
    func finishSession(_ id: UploadID, _ session: UploadSession, caller: Caller) async throws -> ObjectRecord {
        if let generation = session.finishedGeneration {
            if let finished = session.finishedObject { return finished }
            guard let object = try await service.object(bucket: session.bucket, name: session.name), object.generation == generation else {
                throw StorageError.notFound("No such upload: \(id)")
            }
            return object
        }
        if let failure = session.failure {
            throw StorageError(stored: failure)
        }
        let fields = try session.fields()
        // Ask the rules before sealing the bytes, so a refusal leaves the session as it was (and
        // a repeated finalize is refused the same way) instead of losing it.
        if let size = try await service.blobs.uploadSize(id) {
            try await precheck(caller, bucket: session.bucket, name: session.name, size: size, fields: fields)
        }
        let blob = try await service.blobs.finalize(id)
        let object: ObjectRecord
        do {
            object = try await service.store(
                bucket: session.bucket, name: session.name, blob: blob, fields: fields,
                preconditions: try StorageService.Preconditions(session.preconditions ?? [:]), firebase: session.firebase,
                authorize: uploadAuthorizer(caller))
        } catch let error as StorageError {
            var failed = session
            failed.failure = UploadSession.Failure(status: error.status, message: error.message, reason: error.reason)
            try await saveSession(id, failed)
            throw error
        }
        var done = session
        done.finishedGeneration = object.generation
        done.finishedObject = object
        try await saveSession(id, done)
        return object
    }

    func cancelSession(_ id: UploadID) async throws {
        try await service.blobs.cancel(id)
        try await service.catalog.transaction { tx in try tx.deleteUpload(id.rawValue) }
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
