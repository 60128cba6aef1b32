import Foundation
import HTTPTypes
import HearthCore
import HearthFiles
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

/// The Cloud Storage JSON API subset google-cloud-storage and firebase-admin use. Admin only:
/// rules do not apply here.
extension StorageController {
    func cloudAPI(_ request: Request) async throws -> Response {
        try requireAdmin(request)
        let path = request.uri.path
        let query = parseQueryString(request.uri.query)
        if path.hasPrefix("/upload/storage/v1/b/") {
            let parts = try Self.segments(path, after: "/upload/storage/v1/b/")
            guard parts.count == 2, parts[1] == "o" else { throw StorageError.notFound() }
            return try await cloudUpload(request, bucket: parts[0], query: query)
        }
        if path.hasPrefix("/download/storage/v1/b/") {
            let parts = try Self.segments(path, after: "/download/storage/v1/b/")
            guard parts.count >= 3, parts[1] == "o" else { throw StorageError.notFound() }
            return try await cloudDownload(request, bucket: parts[0], name: parts[2...].joined(separator: "/"), query: query)
        }
        guard path == "/storage/v1/b" || path.hasPrefix("/storage/v1/b/") else { throw StorageError.notFound() }
        let parts = try Self.segments(path, after: "/storage/v1/b")
        let rest = Array(parts.drop { $0.isEmpty })
        switch (request.method, rest.count) {
        case (.get, 0): return try await listBuckets(request)
        case (.post, 0): return try await createBucket(request)
        case (_, 1): return try await bucketResource(request, bucket: rest[0])
        case (.get, 2) where rest[1] == "o": return try await cloudList(request, bucket: rest[0], query: query)
        default: break
        }
        guard rest.count >= 3, rest[1] == "o" else { throw StorageError.notFound() }
        let bucket = rest[0]
        // `…/o/{name}/copyTo/b/{bucket}/o/{name}`, `…/rewriteTo/…`, `…/o/{name}/acl[/entity]`, `…/o/{name}/compose`.
        if rest.count == 8, ["copyTo", "rewriteTo"].contains(rest[3]), rest[4] == "b", rest[6] == "o", request.method == .post {
            return try await copy(request, from: (bucket, rest[2]), to: (rest[5], rest[7]), rewrite: rest[3] == "rewriteTo", query: query)
        }
        if rest.count >= 4, rest[3] == "acl" {
            return Self.json(.object([JSONMember("kind", .string("storage#objectAccessControl")), JSONMember("role", .string("READER"))]))
        }
        if rest.count == 4, rest[3] == "compose", request.method == .post {
            return try await compose(request, bucket: bucket, name: rest[2], query: query)
        }
        let name = rest[2...].joined(separator: "/")
        let preconditions = try StorageService.Preconditions(query, selecting: "generation")
        switch request.method {
        case .get, .head:
            return try await retryingReplaced(bucket, name) {
                guard let object = try await service.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
                try preconditions.check(object)
                if query["alt"] == "media" { return try await download(request, object) }
                return Self.json(ObjectResource.cloud(object, base: base(request)))
            }
        case .patch, .put:
            var fields = try ObjectFields(json: try await metadataBody(request))
            if request.method == .put {
                // update(): the resource as sent is the whole writable state.
                for (_, key) in ObjectFields.stringFields where fields[keyPath: key] == nil { fields[keyPath: key] = .some(nil) }
                if fields.metadata == nil { fields.metadata = .some(nil) }
            }
            let changes = fields
            let replace = request.method == .put
            let object = try await service.update(bucket: bucket, name: name, preconditions: preconditions) { record in
                if replace { record.metadata = [:] }
                try changes.apply(to: &record, keepTokens: false)
            }
            return Self.json(ObjectResource.cloud(object, base: base(request)))
        case .delete:
            try await service.delete(bucket: bucket, name: name, preconditions: preconditions)
            return Response(status: .noContent)
        default:
            throw StorageError.notFound()
        }
    }

    private func cloudList(_ request: Request, bucket: String, query: [String: String]) async throws -> Response {
        guard try await service.catalog.read({ tx in try tx.bucket(bucket) }) != nil else { throw StorageError.noSuchBucket }
        let glob: ObjectGlob?
        do {
            glob = try query["matchGlob"].map { try ObjectGlob($0) }
        } catch {
            throw StorageError.badRequest("Invalid matchGlob: \(error)")
        }
        let listQuery = ObjectListQuery(
            prefix: query["prefix"] ?? "", delimiter: query["delimiter"], startOffset: query["startOffset"], endOffset: query["endOffset"],
            pageToken: query["pageToken"], maxResults: min(1000, Int(query["maxResults"] ?? "") ?? 1000),
            includeTrailingDelimiter: query["includeTrailingDelimiter"] == "true", matchGlob: glob)
        let listing: ObjectListing
        do {
            listing = try await service.catalog.read { tx in try tx.list(bucket: bucket, listQuery) }
        } catch is InvalidPageToken {
            throw StorageError.badRequest("Invalid page token")
        }
        let base = base(request)
        var m = [JSONMember("kind", .string("storage#objects"))]
        if !listing.objects.isEmpty { m.append(JSONMember("items", .array(listing.objects.map { ObjectResource.cloud($0, base: base) }))) }
        if !listing.prefixes.isEmpty { m.append(JSONMember("prefixes", .array(listing.prefixes.map { .string($0) }))) }
        if let token = listing.nextPageToken { m.append(JSONMember("nextPageToken", .string(token))) }
        return Self.json(.object(m))
    }

    private func cloudDownload(_ request: Request, bucket: String, name: String, query: [String: String]) async throws -> Response {
        let preconditions = try StorageService.Preconditions(query, selecting: "generation")
        return try await retryingReplaced(bucket, name) {
            guard let object = try await service.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
            try preconditions.check(object)
            return try await download(request, object)
        }
    }

    private func copy(
        _ request: Request, from source: (String, String), to destination: (String, String), rewrite: Bool, query: [String: String]
    ) async throws -> Response {
        guard let object = try await service.object(bucket: source.0, name: source.1) else { throw StorageError.noSuchObject(source.0, source.1) }
        try StorageService.Preconditions(query, selecting: "sourceGeneration", source: true).check(object)
        let fields = try ObjectFields(json: try await metadataBody(request))
        let copied = try await service.copy(
            object, to: destination.0, name: destination.1, fields: fields, preconditions: try StorageService.Preconditions(query))
        let resource = ObjectResource.cloud(copied, base: base(request))
        guard rewrite else { return Self.json(resource) }
        return Self.json(.object([
            JSONMember("kind", .string("storage#rewriteResponse")), JSONMember("totalBytesRewritten", .string(String(copied.size))),
            JSONMember("objectSize", .string(String(copied.size))), JSONMember("done", .bool(true)), JSONMember("resource", resource),
        ]))
    }

    // MARK: Buckets

    private func listBuckets(_ request: Request) async throws -> Response {
        let buckets = try await service.catalog.read { tx in try tx.buckets() }
        let base = base(request)
        return Self.json(.object([
            JSONMember("kind", .string("storage#buckets")), JSONMember("items", .array(buckets.map { ObjectResource.bucket($0, base: base) })),
        ]))
    }

    private func createBucket(_ request: Request) async throws -> Response {
        guard let name = try await metadataBody(request)["name"]?.stringValue, Self.isValidBucketName(name) else {
            throw StorageError.badRequest("Invalid bucket name")
        }
        let now = service.clock()
        let bucket = try await service.catalog.transaction { tx in
            if try tx.bucket(name) != nil {
                throw StorageError.conflict("Your previous request to create the named bucket succeeded and you already own it.")
            }
            let bucket = BucketRecord(name: name, timeCreated: now)
            try tx.saveBucket(bucket)
            return bucket
        }
        return Self.json(ObjectResource.bucket(bucket, base: base(request)))
    }

    private func bucketResource(_ request: Request, bucket name: String) async throws -> Response {
        switch request.method {
        case .get, .patch, .put:
            guard let bucket = try await service.catalog.read({ tx in try tx.bucket(name) }) else { throw StorageError.noSuchBucket }
            return Self.json(ObjectResource.bucket(bucket, base: base(request)))
        case .delete:
            try await service.catalog.transaction { tx in
                guard try tx.bucket(name) != nil else { throw StorageError.noSuchBucket }
                if try tx.hasObjects(bucket: name) { throw StorageError.conflict("The bucket you tried to delete is not empty.") }
                try tx.deleteBucket(name)
            }
            return Response(status: .noContent)
        default:
            throw StorageError.notFound()
        }
    }

    /// 3–222 characters of lowercase letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit.
    static func isValidBucketName(_ name: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        guard (3...222).contains(name.utf8.count), name.utf8.allSatisfy(allowed.contains),
            let first = name.utf8.first, let last = name.utf8.last
        else { return false }
        let alnum = Set("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return alnum.contains(first) && alnum.contains(last)
    }
}

extension StorageController {
    /// `…/o/{destination}/compose`: the sources' bytes, in order, as a new object (up to 32 sources).
    func compose(_ request: Request, bucket: String, name: String, query: [String: String]) async throws -> Response {
        let body = try await metadataBody(request)
        guard case .array(let sources)? = body["sourceObjects"], (1...32).contains(sources.count) else {
            throw StorageError.badRequest("compose needs 1 to 32 sourceObjects")
        }
        var records: [ObjectRecord] = []
        for source in sources {
            guard let sourceName = source["name"]?.stringValue else { throw StorageError.badRequest("every source needs a name") }
            guard let record = try await service.object(bucket: bucket, name: sourceName) else { throw StorageError.noSuchObject(bucket, sourceName) }
            let wanted: String? = switch source["generation"] {
            case .string(let s)?: s
            case .int(let i)?: String(i)
            default: nil
            }
            if let wanted, wanted != String(record.generation) {
                throw StorageError.noSuchObject(bucket, sourceName)
            }
            // objectPreconditions.ifGenerationMatch: the source must still be that revision.
            if let condition = source["objectPreconditions"]?["ifGenerationMatch"] {
                let expected: Int64? = switch condition {
                case .string(let s): Int64(s)
                case .int(let i): i
                default: nil
                }
                guard let expected else { throw StorageError.badRequest("objectPreconditions.ifGenerationMatch must be a number") }
                if expected != record.generation { throw StorageError.preconditionFailed }
            }
            records.append(record)
        }
        let writer = try await service.blobs.makeWriter()
        let blob: BlobInfo
        do {
            for record in records {
                guard let id = BlobID(record.blob) else { throw StorageError.noSuchObject(bucket, record.name) }
                try await service.blobs.read(id, range: nil) { chunk in try await writer.write(chunk) }
            }
            blob = try await writer.commit()
        } catch {
            await writer.abort()
            throw error
        }
        var fields = try ObjectFields(json: body["destination"] ?? .object([]))
        if fields.contentType == nil, let first = records.first?.contentType { fields.contentType = .some(first) }
        let object = try await service.store(
            bucket: bucket, name: name, blob: blob, fields: fields, preconditions: try StorageService.Preconditions(query), firebase: false)
        return Self.json(ObjectResource.cloud(object, base: base(request)))
    }
}
