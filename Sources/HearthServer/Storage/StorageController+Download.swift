import Foundation
import HTTPTypes
import HearthFiles
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
        h[.eTag] = ObjectResource.etag(object)
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
        if object.contentEncoding == "gzip", !Self.acceptsGzip(request.headers[.acceptEncoding]) {
            return try await decompressedDownload(request, object, id: id, headers: h)
        }
        var status = HTTPResponse.Status.ok
        var range: Range<Int64>?
        if let header = request.headers[.range] {
            guard let r = Self.byteRange(header, size: object.size) else {
                h[.contentRange] = "bytes */\(object.size)"
                return Response(status: .rangeNotSatisfiable, headers: h)
            }
            range = r
            status = .partialContent
            h[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(object.size)"
            h[HTTPField.Name("x-goog-hash")!] = nil  // the hashes describe the whole object
        }
        let length = range.map { $0.upperBound - $0.lowerBound } ?? object.size
        if request.method == .head { return Response(status: status, headers: h) }
        let blobs = service.blobs
        let window = range
        // Missing bytes are reported before the status line goes out.
        guard try await blobs.size(of: id) != nil else { throw StorageError.notFound() }
        return Response(status: status, headers: h, body: ResponseBody(contentLength: Int(length)) { writer in
            try await blobs.read(id, range: window) { chunk in try await writer.write(chunk) }
            try await writer.finish(nil)
        })
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
        let blobs = service.blobs
        guard try await blobs.size(of: id) != nil else { throw StorageError.notFound() }
        return Response(status: .ok, headers: h, body: ResponseBody { writer in
            let inflater = try GzipInflater()
            try await blobs.read(id, range: nil) { chunk in
                try await inflater.inflate(chunk) { try await writer.write($0) }
            }
            try inflater.finish()
            try await writer.finish(nil)
        })
    }

    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size`; nil if unsatisfiable or not one range.
    static func byteRange(_ header: String, size: Int64) -> Range<Int64>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let n = Int64(parts[1]), n > 0, size > 0 else { return nil }
            return max(0, size - n)..<size
        }
        guard let start = Int64(parts[0]), start >= 0, start < size else { return nil }
        let end = parts[1].isEmpty ? size - 1 : (Int64(parts[1]).map { min($0, size - 1) } ?? -1)
        guard end >= start else { return nil }
        return start..<(end + 1)
    }
}
