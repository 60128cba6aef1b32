import Foundation
import HTTPTypes
import HearthCore
import HearthStorage
import HearthStore
import Logging
import Hummingbird

/// `GET /{bucket}/{name…}`: where google-cloud-storage's `blob.public_url` and v4 signed URLs
/// (`?X-Goog-Signature=…`) point when it talks to an emulator host; `PUT` to a signed upload URL.
///
/// These URLs are the Cloud Storage XML API, so their errors are XML documents. Hearth has no public ACLs and cannot
/// check Google's URL signatures, so these requests follow the Cloud Storage JSON API's access: open in `--dev` (as the emulator serves them), otherwise only
/// with the admin credential. Apps hand out Firebase download URLs (`/v0/b/…?alt=media&token=…`)
/// for public reading instead.
extension StorageController {
    /// Whether `path` has the shape `/{bucket}/{name}` of a public object URL. A Realtime Database
    /// path ends in `.json` and its keys have no dots, so a bucket name with a dot
    /// (`demo.appspot.com`) can never be one.
    static func mayBePublicObject(_ path: String) -> Bool {
        let rest = path.dropFirst()
        guard let slash = rest.firstIndex(of: "/") else { return false }
        return !rest.hasUTF8Suffix(".json") || rest[..<slash].utf8.contains(UInt8(ascii: "."))
    }

    /// The object's bytes, or nil when the request is not for an object of an existing bucket (the
    /// other services answer it).
    func publicObject(_ request: Request) async -> Response? {
        guard [.get, .head, .put].contains(request.method) else { return nil }
        guard Self.mayBePublicObject(request.uri.path) else { return nil }
        let path = request.uri.path.dropFirst()
        guard let slash = path.firstIndex(of: "/") else { return nil }
        let bucketSegment = path[..<slash]
        let nameSegment = path[path.index(after: slash)...]
        guard !bucketSegment.isEmpty, !nameSegment.isEmpty, let bucket = percentDecode(bucketSegment),
            let name = percentDecode(nameSegment)
        else { return nil }
        do {
            guard try await service.catalog.read({ tx in try tx.bucket(bucket) }) != nil else { return nil }
            try requireAdmin(request)
            if request.method == .put { return try await signedURLUpload(request, bucket: bucket, name: name) }
            let response = try await retryingReplaced(bucket, name) {
                guard let object = try await service.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
                return try await download(request, object)
            }
            guard response.status == .rangeNotSatisfiable else { return response }
            var refused = Self.xmlError(
                StorageError(.requestedRangeNotSatisfiable, request.headers[.range] ?? ""), head: request.method == .head)
            refused.headers[.contentRange] = response.headers[.contentRange]
            return refused
        } catch let error as StorageError {
            return Self.xmlError(error, head: request.method == .head)
        } catch {
            logger.error("storage request failed", metadata: ["hearth.error": "\(error)"])
            return Self.xmlError(StorageError.internalError, head: request.method == .head)
        }
    }

    /// An error in the XML API's shape, which these URLs belong to: `<Error>` with the XML API's `Code`, a `Message`
    /// saying what the code means, and Hearth's own message as `Details`. A HEAD answer has the status only.
    static func xmlError(_ e: StorageError, head: Bool) -> Response {
        let (code, meaning): (String, String) =
            switch e.status {
            case 400: ("InvalidArgument", "The request has an invalid argument.")
            case 401: ("AuthenticationRequired", "This request needs credentials.")
            case 403: ("AccessDenied", "Access to this object is denied.")
            case 404: ("NoSuchKey", "There is no object with this name.")
            case 412: ("PreconditionFailed", "A precondition of the request does not hold.")
            case 413: ("EntityTooLarge", "The upload is larger than allowed.")
            case 416: ("InvalidRange", "The requested range is outside the object.")
            case 500...: ("InternalError", "The server failed; try again.")
            default: ("InvalidRequest", "The request cannot be served.")
            }
        var h = HTTPFields()
        h[.contentType] = "application/xml; charset=UTF-8"
        h[.accessControlAllowOrigin] = "*"
        guard !head else { return Response(status: HTTPResponse.Status(code: e.status), headers: h) }
        let document = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>\(code)</Code><Message>\(meaning)</Message>"
            + "<Details>\(HTML.escape(e.message))</Details></Error>"
        return Response(status: HTTPResponse.Status(code: e.status), headers: h, body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
    }

    /// `PUT /{bucket}/{name}` (a v4 signed upload URL, the XML API): the body becomes the object,
    /// with `Content-Type` and `x-goog-meta-*` headers as its metadata. 200 with the ETag and no
    /// body, as Cloud Storage answers.
    private func signedURLUpload(_ request: Request, bucket: String, name: String) async throws -> Response {
        var fields = ObjectFields()
        if let type = request.headers[.contentType] { fields.contentType = .some(type) }
        var metadata: [String: String?] = [:]
        for field in request.headers where field.name.canonicalName.hasPrefix("x-goog-meta-") {
            metadata[String(field.name.canonicalName.dropFirst("x-goog-meta-".count))] = field.value
        }
        if !metadata.isEmpty { fields.metadata = .some(metadata) }
        var conditions: [String: String] = [:]
        if let match = request.headers[HTTPField.Name("x-goog-if-generation-match")!] { conditions["ifGenerationMatch"] = match }
        let object = try await mediaUpload(
            request, bucket: bucket, name: name, fields: fields, caller: .admin, firebase: false,
            preconditions: try StorageService.Preconditions(conditions))
        var h = HTTPFields()
        h[.eTag] = "\"\(Self.hexMD5(object.md5Hash))\""
        h[HTTPField.Name("x-goog-generation")!] = String(object.generation)
        h[HTTPField.Name("x-goog-metageneration")!] = String(object.metageneration)
        h[HTTPField.Name("x-goog-hash")!] = "crc32c=\(object.crc32c),md5=\(object.md5Hash)"
        return Response(status: .ok, headers: h)
    }

    /// The XML API's ETag is the MD5 in hex.
    static func hexMD5(_ base64: String) -> String {
        (Data(base64Encoded: base64) ?? Data()).map { String(format: "%02x", $0) }.joined()
    }
}
