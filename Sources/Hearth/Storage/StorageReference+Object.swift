public import Foundation

extension StorageReference {
    /// The object's bytes, refusing objects larger than `maxSize` bytes
    /// (``StorageError/Code/downloadSizeExceeded``) without downloading more than `maxSize + 1` bytes.
    ///
    /// When the server answers with the whole object and its MD5 (`x-goog-hash`), the bytes are
    /// checked against it (``StorageError/Code/checksumMismatch``).
    public func data(maxSize: Int64) async throws -> Data {
        try requireObject()
        // One request: ask for the first maxSize+1 bytes; Content-Range tells the full size.
        let answer = try await storage.send(
            "GET", objectURL + "?alt=media", headers: ["Range": "bytes=0-\(maxSize)"], accepting: [416])
        if answer.status == 416 {
            // An empty object has no byte 0.
            if let total = Self.totalSize(answer.header("Content-Range")), total == 0 { return Data() }
            throw StorageError(status: 416, body: answer.body)
        }
        let total = Self.totalSize(answer.header("Content-Range")) ?? Int64(answer.body.count)
        guard total <= maxSize, answer.body.count <= maxSize else {
            throw StorageError(
                code: .downloadSizeExceeded, message: "The object is \(total) bytes, more than the \(maxSize) allowed.", status: answer.status)
        }
        if answer.status == 200, let expected = Self.md5(fromGoogHash: answer.header("x-goog-hash")), answer.header("Content-Encoding") == nil,
            MD5.base64(answer.body) != expected
        {
            throw StorageError.checksumMismatch("downloaded bytes")
        }
        return answer.body
    }

    /// The object's metadata.
    public func metadata() async throws -> StorageMetadata {
        try requireObject()
        let answer = try await storage.send("GET", objectURL)
        return try StorageMetadata.decode(answer.body, status: answer.status)
    }

    /// Changes the writable fields that are set in `metadata` (nil fields stay as they are;
    /// ``StorageMetadata/customMetadata`` is merged key by key). Returns the new metadata.
    @discardableResult
    public func updateMetadata(_ metadata: StorageMetadata) async throws -> StorageMetadata {
        try requireObject()
        let body = try metadata.writableJSON()
        let answer = try await storage.send("PATCH", objectURL, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
        return try StorageMetadata.decode(answer.body, status: answer.status)
    }

    /// A URL anyone can download the object from, without credentials, while its download
    /// token exists: `<server>/v0/b/<bucket>/o/<path>?alt=media&token=<token>`.
    public func downloadURL() async throws -> URL {
        let metadata = try await metadata()
        guard let token = metadata.downloadTokens.first else {
            throw StorageError(code: .objectNotFound, message: "The object has no download token.")
        }
        guard let url = URL(string: objectURL + "?alt=media&token=" + URLEncoding.component(token)) else {
            throw StorageError.invalidResponse(status: 200)
        }
        return url
    }

    /// Deletes the object.
    public func delete() async throws {
        try requireObject()
        _ = try await storage.send("DELETE", objectURL)
    }

    /// `bytes a-b/total` or `bytes */total` → total.
    static func totalSize(_ contentRange: String?) -> Int64? {
        guard let contentRange, let slash = contentRange.lastIndex(of: "/") else { return nil }
        return Int64(contentRange[contentRange.index(after: slash)...].trimmingCharacters(in: .whitespaces))
    }

    /// The `md5=` part of `x-goog-hash: crc32c=…,md5=…`.
    static func md5(fromGoogHash header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.hasPrefix("md5=") { return String(item.dropFirst(4)) }
        }
        return nil
    }
}
