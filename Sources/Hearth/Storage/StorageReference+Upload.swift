public import Foundation

extension StorageReference {
    /// Uploads `data` as this object (replacing any previous one) and returns its metadata.
    ///
    /// Up to 5 MiB go in one multipart request; larger data in a resumable upload (chunks of
    /// 256 KiB doubling up to 8 MiB; after a failed chunk the upload asks the server how much
    /// arrived and continues from there, up to 5 times in a row). The server checks the bytes
    /// against their MD5 and so does the SDK against the stored object
    /// (``StorageError/Code/checksumMismatch``). Cancelling the task cancels the upload.
    ///
    /// `onProgress` hears how many bytes have been sent: 0 first, then as they go, the whole size
    /// last when the upload succeeds, and nothing after this method returns or throws. Reports
    /// come in order on a background thread; the handler should return quickly. For UI, pass
    /// them through a stream (a `Task` per report could reach the main actor out of order):
    ///
    /// ```swift
    /// let (updates, sink) = AsyncStream.makeStream(of: StorageProgress.self, bufferingPolicy: .bufferingNewest(1))
    /// Task { @MainActor in for await p in updates { model.uploaded = p.fractionCompleted } }
    /// defer { sink.finish() }
    /// try await ref.putData(jpeg, metadata: StorageMetadata(contentType: "image/jpeg")) { sink.yield($0) }
    /// ```
    @discardableResult
    public func putData(
        _ data: Data, metadata: StorageMetadata? = nil, onProgress: (@Sendable (StorageProgress) -> Void)? = nil
    ) async throws -> StorageMetadata {
        try requireObject()
        let md5 = MD5.base64(data)
        var fields = metadata ?? StorageMetadata()
        if fields.contentType == nil { fields.contentType = "application/octet-stream" }
        let progress = onProgress.map { ProgressReporter(totalBytes: Int64(data.count), handler: $0) }
        defer { progress?.close() }
        progress?.confirm(0)
        let result: StorageMetadata
        if data.count > storage.resumableThreshold {
            let upload = try ResumableUpload(reference: self, data: data, metadata: fields, md5: md5, progress: progress)
            let session = try await upload.start()
            result = try await upload.send(session: session, from: 0)
        } else {
            result = try await multipartUpload(data, metadata: fields, md5: md5, progress: progress)
        }
        if let stored = result.md5Hash, stored != md5 { throw StorageError.checksumMismatch("stored object") }
        progress?.finish()
        return result
    }

    /// Uploads the file at `url` (read into memory, mapped when possible) with
    /// ``putData(_:metadata:onProgress:)``.
    @discardableResult
    public func putFile(
        from url: URL, metadata: StorageMetadata? = nil, onProgress: (@Sendable (StorageProgress) -> Void)? = nil
    ) async throws -> StorageMetadata {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw StorageError.localFile("The file could not be read.", cause: error)
        }
        return try await putData(data, metadata: metadata, onProgress: onProgress)
    }

    /// One `multipart/related` request: the metadata JSON, then the bytes.
    func multipartUpload(
        _ data: Data, metadata: StorageMetadata, md5: String, progress: ProgressReporter?
    ) async throws -> StorageMetadata {
        var boundary = Self.boundary()
        while data.range(of: Data(boundary.utf8)) != nil { boundary = Self.boundary() }
        var body = Data()
        body.append(Data("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8))
        body.append(try metadata.writableJSON(name: fullPath, md5Hash: md5))
        body.append(Data("\r\n--\(boundary)\r\nContent-Type: \(metadata.contentType ?? "application/octet-stream")\r\n\r\n".utf8))
        let prefix = body.count
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let answer = try await storage.send(
            "POST", storage.objectsURL(bucket: bucket) + "?name=" + URLEncoding.component(fullPath),
            headers: ["X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=\(boundary)"], body: body,
            sent: progress?.requestSent(from: 0, after: prefix))
        return try StorageMetadata.decode(answer.body, status: answer.status)
    }

    private static func boundary() -> String {
        var rng = SystemRandomNumberGenerator()
        return "hearth" + String((0..<24).map { _ in "0123456789".randomElement(using: &rng)! })
    }
}
