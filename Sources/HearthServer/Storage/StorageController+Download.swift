import Foundation
import HTTPTypes
import HearthFiles
import HearthStorage
import HearthStore
import Hummingbird
import NIOCore

extension StorageController {
    /// Streams an object's bytes (memory stays flat whatever the size), honouring one `Range`.
    func download(_ request: Request, _ object: ObjectRecord) async throws -> Response {
        guard let id = BlobID(object.blob) else { throw StorageError.notFound() }
        var h = HTTPFields()
        h[.contentType] = object.contentType ?? "application/octet-stream"
        let filename = object.name.split(separator: "/").last.map(String.init) ?? object.name
        h[.contentDisposition] = "\(object.contentDisposition ?? "attachment"); filename*=UTF-8''\(StoragePath.encodeSegment(filename))"
        h[.eTag] = object.etag
        if let cache = object.cacheControl { h[.cacheControl] = cache }
        if let encoding = object.contentEncoding, encoding != "identity" { h[.contentEncoding] = encoding }
        if let language = object.contentLanguage { h[.contentLanguage] = language }
        h[.acceptRanges] = "bytes"
        h[.accessControlAllowOrigin] = "*"
        // Uploaded HTML or SVG must not run as a page of this origin (the auth action page lives here).
        h[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        h[.contentSecurityPolicy] = "sandbox"
        h[HTTPField.Name("x-goog-generation")!] = String(object.generation)
        h[HTTPField.Name("x-goog-metageneration")!] = String(object.metageneration)
        h[HTTPField.Name("x-goog-storage-class")!] = "STANDARD"
        h[HTTPField.Name("x-goog-hash")!] = "crc32c=\(object.crc32c),md5=\(object.md5Hash)"
        let etag = object.etag
        if let condition = request.headers[.ifMatch], !Self.etagListMatches(condition, etag, weak: false) {
            throw StorageError.preconditionFailed
        }
        if let condition = request.headers[.ifNoneMatch], Self.etagListMatches(condition, etag, weak: true) {
            return Response(status: .notModified, headers: h)
        }
        if object.contentEncoding == "gzip", !Self.acceptsGzip(request.headers[.acceptEncoding]) {
            return try await decompressedDownload(request, object, id: id, headers: h)
        }
        var status = HTTPResponse.Status.ok
        var range: Range<Int64>?
        switch request.headers[.range].map({ Self.byteRange($0, size: object.size) }) {
        case .unsatisfiable?:
            h[.contentRange] = "bytes */\(object.size)"
            return Response(status: .rangeNotSatisfiable, headers: h)
        case .bytes(let r)?:
            range = r
            status = .partialContent
            h[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(object.size)"
            h[HTTPField.Name("x-goog-hash")!] = nil  // the hashes describe the whole object
        case .ignored?, nil:
            break
        }
        let length = range.map { $0.upperBound - $0.lowerBound } ?? object.size
        if request.method == .head {
            h[.contentLength] = String(length)
            return Response(status: status, headers: h)
        }
        // Opened before the status line goes out: missing bytes are still a 404, and an overwrite
        // of the object that deletes this blob meanwhile cannot cut the body short.
        let blob = try await openForDownload(id, object)
        let window = range
        return Response(status: status, headers: h, body: ResponseBody(contentLength: Int(length)) { writer in
            try await blob.read(range: window) { chunk in try await writer.write(chunk) }
            try await writer.finish(nil)
        })
    }

    /// The record said `id`, but an overwrite or delete removed that blob before it was opened.
    struct BlobGone: Error {}

    private func openForDownload(_ id: BlobID, _ object: ObjectRecord) async throws -> any OpenedBlob {
        do {
            return try await service.blobs.open(id)
        } catch let error as BlobStoreError where error.code == .notFound {
            throw BlobGone()
        }
    }

    /// Runs a download handler (look up the object, check access, `download`) again when the
    /// object was replaced between its lookup and the opening of its bytes, so a read racing an
    /// overwrite serves the new object instead of a 404; a few tries, then 404.
    func retryingReplaced(_ bucket: String, _ name: String, _ attempt: () async throws -> Response) async throws -> Response {
        for _ in 0..<3 {
            do {
                return try await attempt()
            } catch is BlobGone {
                continue
            }
        }
        throw StorageError.noSuchObject(bucket, name)
    }

    /// Whether an `If-Match` / `If-None-Match` list names `etag` (or is `*`). `weak` compares
    /// ignoring `W/`, as RFC 9110 asks for `If-None-Match`; `If-Match` needs a strong match.
    static func etagListMatches(_ header: String, _ etag: String, weak: Bool) -> Bool {
        for item in header.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") {
                guard weak else { continue }
                tag.removeFirst(2)
            }
            if tag == etag { return true }
        }
        return false
    }

    /// Whether `Accept-Encoding` names gzip (with a non-zero q). Only then are the stored gzip bytes
    /// sent: Cloud Storage keeps them for requests that say gzip and inflates for the rest, and a
    /// client that sends no header (curl, many HTTP libraries) cannot undo a Content-Encoding.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "gzip" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { return true }
        }
        return false
    }

    /// A gzip-stored object to a client that does not accept gzip: inflated on the way out, so
    /// without Content-Encoding, length, ranges or stored-bytes hashes.
    private func decompressedDownload(_ request: Request, _ object: ObjectRecord, id: BlobID, headers: HTTPFields) async throws -> Response {
        var h = headers
        h[.contentEncoding] = nil
        h[.acceptRanges] = nil
        h[HTTPField.Name("x-goog-hash")!] = nil
        h[HTTPField.Name("x-goog-stored-content-encoding")!] = "gzip"
        if request.method == .head { return Response(status: .ok, headers: h) }
        let blob = try await openForDownload(id, object)
        return Response(status: .ok, headers: h, body: ResponseBody { writer in
            let inflater = try GzipInflater()
            try await blob.read(range: nil) { chunk in
                try await inflater.inflate(chunk) { try await writer.write($0) }
            }
            try inflater.finish()
            try await writer.finish(nil)
        })
    }

    /// What a `Range` header asks of an object of `size` bytes.
    enum ByteRangeRequest: Equatable {
        case bytes(Range<Int64>)
        /// A well-formed single byte range that lies outside the object: 416.
        case unsatisfiable
        /// Another unit, several ranges or a malformed value: served whole with 200, as RFC 9110
        /// allows and Cloud Storage does.
        case ignored
    }

    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size`.
    static func byteRange(_ header: String, size: Int64) -> ByteRangeRequest {
        let header = header.trimmingCharacters(in: .whitespaces)
        guard header.lowercased().hasPrefix("bytes="), !header.contains(",") else { return .ignored }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .ignored }
        func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        func number(_ text: Substring) -> Int64? {
            // A position past Int64 is past any object's end: clamped below, as RFC 9110 says.
            isDigits(text) ? (Int64(text) ?? Int64.max) : nil
        }
        if parts[0].isEmpty {
            guard let n = number(parts[1]) else { return .ignored }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .bytes(max(0, size - n)..<size)
        }
        guard let start = number(parts[0]) else { return .ignored }
        var end = size - 1
        if !parts[1].isEmpty {
            guard let last = number(parts[1]), last >= start else { return .ignored }
            end = min(last, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .bytes(start..<(end + 1))
    }
}
