import Foundation
import HTTPTypes
import HearthCore
import HearthFiles
import HearthRules
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

/// Firebase Storage v0: `/v0/b/{bucket}/o[/{name}]`.
extension StorageController {
    func firebaseAPI(_ request: Request) async throws -> Response {
        let parts = try Self.segments(request.uri.path, after: "/v0/b/")
        let query = parseQueryString(request.uri.query)
        guard let bucket = parts.first, !bucket.isEmpty, parts.count >= 2, parts[1] == "o" else { throw StorageError.notFound() }
        var method = request.method
        if method == .put || method == .post, let override = request.headers[HTTPField.Name("X-HTTP-Method-Override")!] {
            method = HTTPRequest.Method(override.uppercased()) ?? method
        }
        let caller = try caller(request)
        if parts.count == 2 || (parts.count == 3 && parts[2].isEmpty) {
            switch method {
            case .get: return try await firebaseList(bucket: bucket, query: query, caller: caller)
            case .post:
                if let id = query["upload_id"] { return try await firebaseResumable(request, id: id, bucket: bucket, caller: caller) }
                guard let name = query["name"] else { throw StorageError.badRequest("Missing the name of the object to upload (?name=)") }
                return try await firebaseUpload(request, bucket: bucket, name: name, caller: caller)
            case .delete:
                guard let name = query["name"] else { throw StorageError.notFound() }
                return try await firebaseDelete(bucket: bucket, name: name, caller: caller)
            default: throw StorageError.notFound()
            }
        }
        let name = parts[2...].joined(separator: "/")
        switch method {
        case .get, .head:
            if query["alt"] == "media" { return try await firebaseDownload(request, bucket: bucket, name: name, token: query["token"], caller: caller) }
            return try await firebaseMetadata(bucket: bucket, name: name, token: query["token"], caller: caller)
        case .post:
            if query["create_token"] != nil || query["delete_token"] != nil {
                guard case .admin = caller else { throw StorageError.forbidden("Missing admin credentials.") }
                return try await firebaseToken(bucket: bucket, name: name, delete: query["delete_token"])
            }
            if let id = query["upload_id"] { return try await firebaseResumable(request, id: id, bucket: bucket, caller: caller) }
            return try await firebaseUpload(request, bucket: bucket, name: name, caller: caller)
        case .patch:
            let fields = try ObjectFields(json: try await metadataBody(request))
            guard try await service.object(bucket: bucket, name: name) != nil else { throw missing(caller, .update, bucket: bucket, name: name) }
            let object = try await service.update(bucket: bucket, name: name) { record in
                var updated = record
                try fields.apply(to: &updated, keepTokens: true)
                try access.authorize(caller, .update, bucket: bucket, name: name, resource: updated, existing: record)
                record = updated
            }
            return Self.json(ObjectResource.firebase(object))
        case .delete:
            return try await firebaseDelete(bucket: bucket, name: name, caller: caller)
        default:
            throw StorageError.notFound()
        }
    }

    private func firebaseList(bucket: String, query: [String: String], caller: Caller) async throws -> Response {
        let prefix = query["prefix"] ?? ""
        guard prefix.isEmpty || prefix.hasSuffix("/") else { throw StorageError.badRequest("The prefix must be empty or end with /") }
        try access.authorize(caller, .list, bucket: bucket, name: prefix)
        let maxResults = min(1000, max(1, Int(query["maxResults"] ?? "") ?? 1000))
        guard (query["delimiter"] ?? "/") == "/" else { throw StorageError.badRequest("The delimiter must be /") }
        let listQuery = ObjectListQuery(prefix: prefix, delimiter: query["delimiter"], pageToken: query["pageToken"], maxResults: maxResults)
        let listing: ObjectListing
        do {
            listing = try await service.catalog.read { tx in try tx.list(bucket: bucket, listQuery) }
        } catch is InvalidPageToken {
            throw StorageError.badRequest("Invalid page token")
        }
        // Names with empty segments cannot be addressed by the SDKs' paths; Firebase leaves them out,
        // and so the folders they would make (`dir//` is the folder of `dir//x`).
        var items = listing.objects.filter { !Self.hasEmptySegment($0.name[...]) }
        let prefixes = listing.prefixes.filter { !Self.hasEmptySegment($0.hasSuffix("/") ? $0.dropLast() : $0[...]) }
        if query["delimiter"] == nil, caller != .admin {
            // A recursive listing shows an object only if listing its own folder is allowed, so no
            // name below a folder the rules keep closed comes out.
            var allowed: [Substring: Bool] = [:]
            items = items.filter { object in
                let folder = object.name.lastIndex(of: "/").map { object.name[...$0] } ?? ""
                if let known = allowed[folder] { return known }
                let ok = (try? access.authorize(caller, .list, bucket: bucket, name: String(folder))) != nil
                allowed[folder] = ok
                return ok
            }
        }
        var m = [
            JSONMember("prefixes", .array(prefixes.map { .string($0) })),
            JSONMember("items", .array(items.map { .object([JSONMember("name", .string($0.name)), JSONMember("bucket", .string($0.bucket))]) })),
        ]
        if let token = listing.nextPageToken { m.append(JSONMember("nextPageToken", .string(token))) }
        return Self.json(.object(m))
    }

    static func hasEmptySegment(_ name: Substring) -> Bool {
        name.split(separator: "/", omittingEmptySubsequences: false).contains("")
    }

    private func firebaseUpload(_ request: Request, bucket: String, name: String, caller: Caller) async throws -> Response {
        let protocolName = request.headers[HTTPField.Name("X-Goog-Upload-Protocol")!]?.lowercased()
        switch protocolName {
        case "resumable":
            let command = request.headers[HTTPField.Name("X-Goog-Upload-Command")!]?.lowercased() ?? ""
            guard command == "start" else { throw StorageError.badRequest("A resumable upload starts with X-Goog-Upload-Command: start") }
            let json = try await metadataBody(request)
            var fields = try ObjectFields(json: json)
            let declaredType = request.headers[HTTPField.Name("X-Goog-Upload-Header-Content-Type")!]
            if fields.contentType == nil, let declaredType { fields.contentType = .some(declaredType) }
            let total = request.headers[HTTPField.Name("X-Goog-Upload-Header-Content-Length")!].flatMap { Int64($0) }
            try await access.precheck(caller, bucket: bucket, name: name, size: total, fields: fields)
            var started = UploadSession(
                bucket: bucket, name: name, metadata: String(decoding: json.jsonBytes, as: UTF8.self), firebase: true, contentType: declaredType,
                total: total, created: service.clock())
            started.starter = UploadSession.Starter(caller)
            let id = try await access.startSession(started)
            var h = HTTPFields()
            let url = "\(base(request))/v0/b/\(StoragePath.encodeSegment(bucket))/o?name=\(StoragePath.encodeSegment(name))&upload_id=\(id)&upload_protocol=resumable"
            h[HTTPField.Name("X-Goog-Upload-Status")!] = "active"
            h[HTTPField.Name("X-Goog-Upload-URL")!] = url
            h[HTTPField.Name("X-Goog-Upload-Control-URL")!] = url
            h[HTTPField.Name("X-Goog-Upload-Chunk-Granularity")!] = "262144"
            h[HTTPField.Name("x-gupload-uploadid")!] = id.rawValue
            return Self.json(.object([]), headers: h)
        case "multipart":
            let object = try await multipartUpload(request, bucket: bucket, name: name, caller: caller, firebase: true, preconditions: .init())
            return Self.json(ObjectResource.firebase(object))
        default:
            var fields = ObjectFields()
            if let type = request.headers[.contentType] { fields.contentType = .some(type) }
            let object = try await mediaUpload(request, bucket: bucket, name: name, fields: fields, caller: caller, firebase: true, preconditions: .init())
            return Self.json(ObjectResource.firebase(object))
        }
    }

    /// Chunks, queries, finalize and cancel of the X-Goog-Upload protocol.
    private func firebaseResumable(_ request: Request, id: String, bucket: String, caller: Caller) async throws -> Response {
        let (upload, session) = try await access.session(id, firebase: true, bucket: bucket)
        try session.checkStarter(caller)
        let commands = Set((request.headers[HTTPField.Name("X-Goog-Upload-Command")!] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        var h = HTTPFields()
        if commands.contains("cancel") {
            try await access.cancelSession(upload)
            return Self.json(.object([]))
        }
        if session.finishedGeneration != nil {
            // Finalized: every command answers `final` with the stored object, and nothing more
            // is appended (the JS SDK stops on `final`; `active` would make it start over).
            h[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
            do {
                let object = try await access.finishSession(upload, session, caller: caller)
                h[HTTPField.Name("X-Goog-Upload-Size-Received")!] = String(object.size)
                return Self.json(ObjectResource.firebase(object), headers: h)
            } catch let error as StorageError {
                var response = Self.firebaseError(error)
                response.headers[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
                return response
            }
        }
        if let failure = session.failure {
            // Refused for good (past the rules' size bound, or at finalize): every command but
            // cancel repeats the answer, so no later finalize stores what arrived before it.
            var response = Self.firebaseError(StorageError(stored: failure))
            response.headers[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
            return response
        }
        if commands.contains("query") {
            let received = try await service.blobs.uploadSize(upload) ?? 0
            h[HTTPField.Name("X-Goog-Upload-Status")!] = "active"
            h[HTTPField.Name("X-Goog-Upload-Size-Received")!] = String(received)
            return Self.json(.object([]), headers: h)
        }
        if commands.contains("upload") {
            guard let offset = request.headers[HTTPField.Name("X-Goog-Upload-Offset")!].flatMap({ Int64($0) }) else {
                throw StorageError.badRequest("X-Goog-Upload-Offset is required")
            }
            do {
                // The declared size, or what the rules could accept if that is less.
                let allowed = access.uploadLimit(caller, bucket: session.bucket, name: session.name)
                let body = if let total = session.total, total <= allowed.bytes {
                    bounded(request, from: offset, limit: total)
                } else {
                    bounded(request, from: offset, limit: allowed.bytes, refusal: allowed.refusal)
                }
                _ = try await service.blobs.append(to: upload, at: offset, contentsOf: body)
            } catch let error as BlobStoreError where error.code == .offsetGap {
                throw StorageError.badRequest("The upload offset \(offset) is past the bytes received")
            } catch let error as StorageError where error.code == .forbidden {
                // Past what the rules could accept: the session ends refused.
                var failed = session
                failed.failure = UploadSession.Failure(error)
                try await access.saveSession(upload, failed)
                var response = Self.firebaseError(error)
                response.headers[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
                return response
            }
        }
        if commands.contains("finalize") {
            // Fewer bytes than the start declared is a client that lost a chunk: refuse, and keep
            // the session so it can send the rest (more than declared was already refused).
            if let total = session.total, let received = try await service.blobs.uploadSize(upload), received != total {
                h[HTTPField.Name("X-Goog-Upload-Status")!] = "active"
                h[HTTPField.Name("X-Goog-Upload-Size-Received")!] = String(received)
                var response = Self.firebaseError(StorageError.badRequest(
                    "The upload was finalized after \(received) of the \(total) bytes its start declared"))
                response.headers.append(contentsOf: h)
                return response
            }
            h[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
            do {
                let object = try await access.finishSession(upload, session, caller: caller)
                return Self.json(ObjectResource.firebase(object), headers: h)
            } catch let error as StorageError {
                var response = Self.firebaseError(error)
                response.headers[HTTPField.Name("X-Goog-Upload-Status")!] = "final"
                return response
            }
        }
        guard commands.contains("upload") else { throw StorageError.badRequest("Unknown X-Goog-Upload-Command") }
        h[HTTPField.Name("X-Goog-Upload-Status")!] = "active"
        return Self.json(.object([]), headers: h)
    }

    /// A missing object is 404 only to a caller the rules would let see it; others get the same 403
    /// as for an existing object, so the rules decide what a caller learns about names.
    private func missing(_ caller: Caller, _ method: StorageRulesMethod, bucket: String, name: String) -> StorageError {
        do {
            try access.authorize(caller, method, bucket: bucket, name: name)
            return .notFound()
        } catch let denial as StorageError {
            return denial
        } catch {
            return .notFound()
        }
    }

    /// A valid download token opens the metadata as it opens the bytes: Firebase treats the token
    /// as read access to the object, and clients holding only a download URL fetch both.
    private func firebaseMetadata(bucket: String, name: String, token: String?, caller: Caller) async throws -> Response {
        guard let existing = try await service.object(bucket: bucket, name: name) else { throw missing(caller, .get, bucket: bucket, name: name) }
        if !Self.hasDownloadToken(token, existing) {
            try access.authorize(caller, .get, bucket: bucket, name: name, existing: existing)
        }
        var object = existing
        if object.downloadTokens.isEmpty {
            // So getDownloadURL works for files an admin uploaded without a token.
            object = try await service.update(bucket: bucket, name: name) { record in
                if record.downloadTokens.isEmpty { record.downloadTokens = [UUID().uuidString.lowercased()] }
            }
        }
        return Self.json(ObjectResource.firebase(object))
    }

    private func firebaseDownload(_ request: Request, bucket: String, name: String, token: String?, caller: Caller) async throws -> Response {
        try await retryingReplaced(bucket, name) {
            guard let object = try await service.object(bucket: bucket, name: name) else { throw missing(caller, .get, bucket: bucket, name: name) }
            if !Self.hasDownloadToken(token, object) {
                try access.authorize(caller, .get, bucket: bucket, name: name, existing: object)
            }
            return try await download(request, object)
        }
    }

    /// A valid download token stands in for read permission; an unknown one falls back to the rules.
    static func hasDownloadToken(_ token: String?, _ object: ObjectRecord) -> Bool {
        guard let token else { return false }
        return object.downloadTokens.contains { constantTimeEquals($0, token) }
    }

    private func firebaseDelete(bucket: String, name: String, caller: Caller) async throws -> Response {
        do {
            try await service.delete(bucket: bucket, name: name) { existing in
                try access.authorize(caller, .delete, bucket: bucket, name: name, existing: existing)
            }
        } catch let error as StorageError where error.code == .notFound {
            throw missing(caller, .delete, bucket: bucket, name: name)
        }
        return Response(status: .noContent, headers: [.accessControlAllowOrigin: "*"])
    }

    private func firebaseToken(bucket: String, name: String, delete: String?) async throws -> Response {
        let object = try await service.update(bucket: bucket, name: name) { record in
            var tokens = record.downloadTokens
            if let delete {
                tokens.removeAll { $0 == delete }
                if tokens.isEmpty { tokens = [UUID().uuidString.lowercased()] }
            } else {
                try ObjectFields.checkTokenCount(tokens.count + 1)
                tokens.append(UUID().uuidString.lowercased())
            }
            record.downloadTokens = tokens
        }
        return Self.json(ObjectResource.firebase(object))
    }
}
