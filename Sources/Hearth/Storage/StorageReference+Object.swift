public import Foundation

extension StorageReference {
    /// The object's bytes, refusing objects larger than `maxSize` bytes
    /// (``StorageError/Code/downloadSizeExceeded``) without downloading more than `maxSize + 1` bytes.
    ///
    /// When the server answers with the whole object and its MD5 (`x-goog-hash`), the bytes are
    /// checked against it (``StorageError/Code/checksumMismatch``).
    ///
    /// `onProgress`, when given, hears the bytes received so far: 0 first, then one report per
    /// change, in order, and the whole size last when the download succeeds; nothing after this
    /// call returns or throws. It runs on a URLSession queue (the last report may come from the
    /// calling task); hand the reports to the UI as ``putData(_:metadata:onProgress:)`` shows.
    ///
    /// Cancelling the calling task stops the download (``StorageError/Code/cancelled``).
    public func data(maxSize: Int64, onProgress: (@Sendable (StorageProgress) -> Void)? = nil) async throws -> Data {
        try requireObject()
        guard maxSize >= 0 else { throw StorageError(code: .invalidArgument, message: "maxSize must not be negative.") }
        // One request: ask for the first maxSize+1 bytes; Content-Range tells the full size.
        let url = objectURL + "?alt=media"
        let range = ["Range": "bytes=0-\(maxSize)"]
        let transfer = onProgress.map { DownloadTransfer(sink: .memory(maxSize: maxSize), onProgress: $0) }
        let answer =
            if let transfer {
                try await storage.download(url, headers: range, into: transfer, accepting: [416])
            } else {
                try await storage.send("GET", url, headers: range, accepting: [416])
            }
        do {
            let data = try Self.wholeObject(answer, maxSize: maxSize)
            // An empty object's answer is a 416 (it has no byte 0), which no report came with.
            if answer.status == 416 { onProgress?(StorageProgress(completedBytes: 0, totalBytes: 0)) }
            transfer?.finish()
            return data
        } catch {
            transfer?.closeReports()
            throw error
        }
    }

    /// Checks a ranged download's answer: the object must fit in `maxSize` bytes and match its MD5.
    private static func wholeObject(_ answer: HTTPExchange, maxSize: Int64) throws -> Data {
        if answer.status == 416 {
            // An empty object has no byte 0.
            if let total = totalSize(answer.header("Content-Range")), total == 0 { return Data() }
            throw StorageError(status: 416, body: answer.body)
        }
        let total = totalSize(answer.header("Content-Range")) ?? Int64(answer.body.count)
        guard total <= maxSize, answer.body.count <= maxSize else {
            throw StorageError(
                code: .downloadSizeExceeded, message: "The object is \(total) bytes, more than the \(maxSize) allowed.", status: answer.status)
        }
        if answer.status == 200, let expected = md5(fromGoogHash: answer.header("x-goog-hash")), answer.header("Content-Encoding") == nil,
            MD5.base64(answer.body) != expected
        {
            throw StorageError.checksumMismatch("downloaded bytes")
        }
        return answer.body
    }

    /// Downloads the object into the file at `fileURL`, streaming it (the object is never held in
    /// memory whole), and returns `fileURL`.
    ///
    /// The bytes go to a new file beside `fileURL` first (`.<name>.<UUID>.partial`). Only a
    /// download that completed, and matched the object's MD5 when the server sent it, replaces
    /// `fileURL` with it, in one `rename` (an existing file is replaced; the new file has default
    /// permissions and attributes). A failed or cancelled download leaves `fileURL` as it was and
    /// removes the partial file; one left by a crash is removed by a later download to the same
    /// `fileURL` once it is an hour old. Problems with the file are
    /// ``StorageError/Code/localFile``. `onProgress` reports as in ``data(maxSize:onProgress:)``.
    @discardableResult
    public func write(toFile fileURL: URL, onProgress: (@Sendable (StorageProgress) -> Void)? = nil) async throws -> URL {
        try requireObject()
        guard fileURL.isFileURL else { throw StorageError(code: .invalidArgument, message: "The destination is not a file URL.") }
        Self.removeStalePartials(of: fileURL)
        let partial = fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).partial")
        let handle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            handle = try FileHandle(forWritingTo: partial)
        } catch {
            throw StorageError.localFile("The file could not be created.", cause: error)
        }
        var keep = false
        defer {
            try? handle.close()
            if !keep { try? FileManager.default.removeItem(at: partial) }
        }
        let transfer = DownloadTransfer(sink: .file(handle), onProgress: onProgress)
        let answer = try await storage.download(objectURL + "?alt=media", into: transfer)
        do {
            if let expected = Self.md5(fromGoogHash: answer.header("x-goog-hash")), answer.header("Content-Encoding") == nil,
                transfer.fileMD5 != expected
            {
                throw StorageError.checksumMismatch("downloaded bytes")
            }
            do {
                try handle.synchronize()
                try handle.close()
            } catch {
                throw StorageError.localFile("The file could not be written.", cause: error)
            }
            // Cancelled after the last byte: the file stays as it was.
            if Task.isCancelled { throw StorageError.cancelled }
            // rename(2) replaces an existing file in one step, and works where it does not exist yet.
            guard rename(partial.path, fileURL.path) == 0 else {
                throw StorageError.localFile("The file could not be moved into place.", cause: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            keep = true
            transfer.finish()
            return fileURL
        } catch {
            transfer.closeReports()
            throw error
        }
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

    /// How long a partial file of a download to the same destination must have been left alone
    /// before ``write(toFile:onProgress:)`` takes it for one left by a crash and removes it (a
    /// download in progress writes to its file all the time).
    static let stalePartialAge: TimeInterval = 3600

    /// Removes partial files of earlier downloads to `fileURL` (`.<name>.<UUID>.partial`) that a
    /// crash or a killed app left behind; a partial file still being written is kept.
    static func removeStalePartials(of fileURL: URL, now: Date = Date()) {
        let folder = fileURL.deletingLastPathComponent()
        let prefix = ".\(fileURL.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".partial") {
            // Only the names this method makes: the prefix, a UUID, the suffix.
            let middle = name.dropFirst(prefix.count).dropLast(".partial".count)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            let file = folder.appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > stalePartialAge
            else { continue }
            try? FileManager.default.removeItem(at: file)
        }
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
