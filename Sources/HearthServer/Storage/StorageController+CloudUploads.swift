import Foundation
import HTTPTypes
import HearthCore
import HearthFiles
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

/// `/upload/storage/v1/b/{bucket}/o`: `uploadType=media|multipart|resumable`, and the resumable
/// session's PUTs (`Content-Range`, 308 until the last byte) and DELETE.
extension StorageController {
    func cloudUpload(_ request: Request, bucket: String, query: [String: String]) async throws -> Response {
        if let id = query["upload_id"] {
            switch request.method {
            case .put, .post: return try await resumableChunk(request, id: id, bucket: bucket)
            case .delete:
                let (upload, _) = try await access.session(id, firebase: false, bucket: bucket)
                try await access.cancelSession(upload)
                return Response(status: HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"))
            default: throw StorageError.notFound()
            }
        }
        guard request.method == .post else { throw StorageError.notFound() }
        let preconditions = try StorageService.Preconditions(query)
        switch query["uploadType"] {
        case "media":
            guard let name = query["name"] else { throw StorageError.badRequest("Upload requires the object name (?name=)") }
            var fields = ObjectFields()
            if let type = request.headers[.contentType] { fields.contentType = .some(type) }
            let object = try await mediaUpload(request, bucket: bucket, name: name, fields: fields, caller: .admin, firebase: false, preconditions: preconditions)
            return Self.json(ObjectResource.cloud(object, base: base(request)))
        case "multipart":
            let object = try await multipartUpload(request, bucket: bucket, name: query["name"], caller: .admin, firebase: false, preconditions: preconditions)
            return Self.json(ObjectResource.cloud(object, base: base(request)))
        case "resumable":
            let json = try await metadataBody(request)
            guard let name = query["name"] ?? json["name"]?.stringValue else {
                throw StorageError.badRequest("Upload requires the object name (?name= or \"name\")")
            }
            _ = try ObjectFields(json: json)
            _ = try StorageService.Preconditions(query)
            try StorageService.checkName(name)
            let contentType = request.headers[HTTPField.Name("X-Upload-Content-Type")!]
            let total = request.headers[HTTPField.Name("X-Upload-Content-Length")!].flatMap { Int64($0) }
            let id = try await access.startSession(UploadSession(
                bucket: bucket, name: name, metadata: String(decoding: json.jsonBytes, as: UTF8.self), firebase: false,
                contentType: contentType, total: total, preconditions: query.filter { $0.key.hasPrefix("if") }, created: service.clock()))
            var h = HTTPFields()
            h[.location] = "\(base(request))/upload/storage/v1/b/\(StoragePath.encodeSegment(bucket))/o?uploadType=resumable&upload_id=\(id)"
            h[.accessControlAllowOrigin] = "*"
            return Response(status: .ok, headers: h)
        default:
            throw StorageError.badRequest("uploadType must be media, multipart or resumable")
        }
    }

    /// One PUT of a resumable session: `Content-Range: bytes a-b/total|*` appends, `bytes */total|*`
    /// asks how much arrived. 308 + `Range` until the object is complete, then 200 + the resource.
    private func resumableChunk(_ request: Request, id: String, bucket: String) async throws -> Response {
        let (upload, session) = try await access.session(id, firebase: false, bucket: bucket)
        if session.finishedGeneration != nil {
            let object = try await access.finishSession(upload, session, caller: .admin)
            return Self.json(ObjectResource.cloud(object, base: base(request)))
        }
        let range = try request.headers[.contentRange].map(Self.contentRange)
        var total = session.total
        if let declared = range?.total { total = declared }
        var received = try await service.blobs.uploadSize(upload) ?? 0
        if let start = range?.start {
            received = try await appendChunk(upload, at: start, request, limit: total)
        } else if range == nil {
            // No Content-Range: the whole object in this one request.
            received = try await appendChunk(upload, at: received, request, limit: total)
            total = received
        }
        if let total, received >= total {
            var finishing = session
            finishing.total = total
            let hashes = Self.googHash(request.headers[HTTPField.Name("x-goog-hash")!])
            if hashes.md5 != nil || hashes.crc32c != nil {
                var fields = try ObjectFields(json: try JSONValue.parse(session.metadata))
                fields.md5Hash = hashes.md5 ?? fields.md5Hash
                fields.crc32c = hashes.crc32c ?? fields.crc32c
                finishing.metadata = try Self.withChecksums(session.metadata, md5: fields.md5Hash, crc32c: fields.crc32c)
            }
            let object = try await access.finishSession(upload, finishing, caller: .admin)
            return Self.json(ObjectResource.cloud(object, base: base(request)))
        }
        var h = HTTPFields()
        if received > 0 { h[.range] = "bytes=0-\(received - 1)" }
        return Response(status: HTTPResponse.Status(code: 308, reasonPhrase: "Resume Incomplete"), headers: h)
    }

    private func appendChunk(_ upload: UploadID, at offset: Int64, _ request: Request, limit: Int64?) async throws -> Int64 {
        do {
            return try await service.blobs.append(
                to: upload, at: offset, contentsOf: bounded(request, from: offset, limit: limit ?? StorageService.maxObjectBytes))
        } catch let error as BlobStoreError where error.code == .offsetGap {
            throw StorageError.badRequest("The chunk starts at byte \(offset), past the bytes received")
        }
    }

    /// `bytes a-b/total`, `bytes a-b/*`, `bytes */total`, `bytes */*`.
    static func contentRange(_ header: String) throws -> (start: Int64?, total: Int64?) {
        let invalid = StorageError.badRequest("Invalid Content-Range: \(header)")
        guard header.hasPrefix("bytes ") else { throw invalid }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { throw invalid }
        var total: Int64?
        if parts[1] != "*" {
            guard let t = Int64(parts[1]), t >= 0 else { throw invalid }
            total = t
        }
        if parts[0] == "*" { return (nil, total) }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start >= 0, end >= start else { throw invalid }
        return (start, total)
    }

    /// `x-goog-hash: crc32c=…,md5=…`.
    static func googHash(_ header: String?) -> (md5: String?, crc32c: String?) {
        var md5: String?
        var crc: String?
        for part in (header ?? "").split(separator: ",") {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            if kv[0] == "md5" { md5 = String(kv[1]) }
            if kv[0] == "crc32c" { crc = String(kv[1]) }
        }
        return (md5, crc)
    }

    static func withChecksums(_ metadata: String, md5: String?, crc32c: String?) throws -> String {
        guard case .object(var members) = try JSONValue.parse(metadata) else { return metadata }
        members.removeAll { $0.key == "md5Hash" || $0.key == "crc32c" }
        if let md5 { members.append(JSONMember("md5Hash", .string(md5))) }
        if let crc32c { members.append(JSONMember("crc32c", .string(crc32c))) }
        return String(decoding: JSONValue.object(members).jsonBytes, as: UTF8.self)
    }
}
