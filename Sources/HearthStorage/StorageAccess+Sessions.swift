import Foundation
import HearthCore
import HearthFiles
import HearthStore

/// Resumable upload sessions, for both APIs: the session record in the catalog beside the bytes
/// received so far in the blob store, and the object made from them under the rules.
extension StorageAccess {
    /// Records a new session (dropping those nobody touched for a week) and returns its id.
    package func startSession(_ session: UploadSession) async throws -> UploadID {
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
    package func session(_ id: String, firebase: Bool, bucket: String) async throws -> (UploadID, UploadSession) {
        guard let upload = UploadID(id), let data = try await service.catalog.read({ tx in try tx.upload(id) }),
            let session = try? JSONDecoder().decode(UploadSession.self, from: data), session.firebase == firebase, session.bucket == bucket
        else { throw StorageError.notFound("No such upload: \(id)") }
        return (upload, session)
    }

    /// Replaces the session's record.
    package func saveSession(_ id: UploadID, _ session: UploadSession) async throws {
        let data = try JSONEncoder().encode(session)
        try await service.catalog.transaction { tx in try tx.saveUpload(id.rawValue, data: data, created: session.created) }
    }

    /// Turns a session's bytes into the object (rules checked as for a one-shot upload). A session
    /// finished before answers with the object it made; one that failed, with its failure again.
    package func finishSession(_ id: UploadID, _ session: UploadSession, caller: Caller) async throws -> ObjectRecord {
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
            failed.failure = UploadSession.Failure(error)
            try await saveSession(id, failed)
            throw error
        }
        var done = session
        done.finishedGeneration = object.generation
        done.finishedObject = object
        try await saveSession(id, done)
        return object
    }

    /// Drops the session and its bytes.
    package func cancelSession(_ id: UploadID) async throws {
        try await service.blobs.cancel(id)
        try await service.catalog.transaction { tx in try tx.deleteUpload(id.rawValue) }
    }
}
