import HearthCore
import HearthFiles
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

extension StorageController {
    /// A `multipart/related` upload: a JSON metadata part, then the media part, streamed to disk.
    /// The object's type is the metadata's `contentType`, else the media part's `Content-Type`.
    func multipartUpload(
        _ request: Request, bucket: String, name queryName: String?, caller: Caller, firebase: Bool,
        preconditions: StorageService.Preconditions
    ) async throws -> ObjectRecord {
        guard let contentType = request.headers[.contentType] else { throw StorageError.badRequest("A multipart upload needs a Content-Type with a boundary") }
        do {
            var reader = try MultipartReader(contentType: contentType, body: request.body)
            guard try await reader.nextPart() != nil else { throw StorageError.badRequest("The multipart body has no metadata part") }
            let metadataBytes = try await reader.collectBody(upTo: Self.maxMetadataBytes)
            let json = metadataBytes.readableBytes == 0 ? JSONValue.object([]) : try JSONValue.parse(metadataBytes.readableBytesView)
            var fields = try ObjectFields(json: json)
            guard let name = queryName ?? json["name"]?.stringValue else { throw StorageError.badRequest("The upload names no object") }
            guard let media = try await reader.nextPart() else { throw StorageError.badRequest("The multipart body has no media part") }
            if fields.contentType == nil, let type = media.contentType { fields.contentType = .some(type) }
            try await access.precheck(caller, bucket: bucket, name: name, size: nil, fields: fields)
            let limit = access.uploadLimit(caller, bucket: bucket, name: name)
            let writer = try await service.blobs.makeWriter()
            let blob: BlobInfo
            do {
                var total: Int64 = 0
                while let chunk = try await reader.nextBodyChunk() {
                    total += Int64(chunk.readableBytes)
                    guard total <= limit.bytes else { throw limit.refusal ?? StorageError.tooLarge(Int(StorageService.maxObjectBytes)) }
                    try await writer.write(chunk)
                }
                // Anything after the media part is ignored, but the body must be well formed.
                while try await reader.nextPart() != nil {}
                blob = try await writer.commit()
            } catch {
                await writer.abort()
                throw error
            }
            return try await service.store(
                bucket: bucket, name: name, blob: blob, fields: fields, preconditions: preconditions, firebase: firebase,
                authorize: access.uploadAuthorizer(caller))
        } catch let error as MultipartError {
            throw StorageError.badRequest("Malformed multipart body: \(error)")
        } catch let error as JSONError {
            throw StorageError.badRequest("The metadata part is not valid JSON: \(error)")
        }
    }
}
