import Foundation
import HTTPTypes
import HearthCore
import HearthFiles
import HearthRules
import HearthStore
import Hummingbird
import NIOCore

extension StorageController {
    /// The largest object Hearth accepts (5 TiB is Cloud Storage's; a single server is smaller).
    static let maxObjectBytes: Int64 = 64 * 1024 * 1024 * 1024
    /// The largest metadata JSON (start of a resumable upload, PATCH bodies).
    static let maxMetadataBytes = 1 << 20

    /// Streams `chunks` into a new blob, refusing more than `limit` bytes.
    func receive<Chunks: AsyncSequence>(_ chunks: Chunks, limit: Int64 = maxObjectBytes) async throws -> BlobInfo
    where Chunks.Element == ByteBuffer {
        let writer = try await service.blobs.makeWriter()
        do {
            var total: Int64 = 0
            for try await chunk in chunks {
                total += Int64(chunk.readableBytes)
                guard total <= limit else { throw StorageError.tooLarge(Int(limit)) }
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
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }) {
            try await precheck(caller, bucket: bucket, name: name, size: length, fields: fields)
        }
        let blob = try await receive(request.body)
        return try await service.store(
            bucket: bucket, name: name, blob: blob, fields: fields, preconditions: preconditions, firebase: firebase,
            authorize: uploadAuthorizer(caller))
    }

    /// Refuses an upload the rules would refuse before reading its bytes (the size is the declared one).
    func precheck(_ caller: Caller, bucket: String, name: String, size: Int64, fields: ObjectFields) async throws {
        guard case .user = caller else { return }
        try StorageService.checkName(name)
        let existing = try await service.object(bucket: bucket, name: name)
        try authorize(
            caller, existing == nil ? .create : .update, bucket: bucket, name: name,
            resource: plannedObject(bucket: bucket, name: name, size: size, fields: fields), existing: existing)
    }

    // MARK: Resumable sessions (both protocols)

    func startSession(_ session: UploadSession) async throws -> UploadID {
        let id = try await service.blobs.startUpload()
        let data = try JSONEncoder().encode(session)
        try await service.catalog.transaction { tx in
            try tx.deleteUploads(createdBefore: session.created - 7 * 24 * 3_600_000)
            try tx.saveUpload(id.rawValue, data: data, created: session.created)
        }
        return id
    }

    func session(_ id: String) async throws -> (UploadID, UploadSession) {
        guard let upload = UploadID(id), let data = try await service.catalog.read({ tx in try tx.upload(id) }),
            let session = try? JSONDecoder().decode(UploadSession.self, from: data)
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
            guard let object = try await service.object(bucket: session.bucket, name: session.name), object.generation == generation else {
                throw StorageError.notFound("No such upload: \(id)")
            }
            return object
        }
        if let failure = session.failure {
            throw StorageError(status: failure.status, message: failure.message, reason: failure.reason)
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
        try await saveSession(id, done)
        return object
    }

    func cancelSession(_ id: UploadID) async throws {
        try await service.blobs.cancel(id)
        try await service.catalog.transaction { tx in try tx.deleteUpload(id.rawValue) }
    }
}
