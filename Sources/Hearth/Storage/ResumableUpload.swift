import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resumable upload with the X-Goog-Upload protocol: `start` opens a session, chunks go to
/// the session URL with their offset, the last one finalizes; `query` says how many bytes the
/// server has, `cancel` drops the session.
struct ResumableUpload: Sendable {
    let reference: StorageReference
    let data: Data
    let contentType: String
    let metadataJSON: Data
    let progress: ProgressReporter?

    init(reference: StorageReference, data: Data, metadata: StorageMetadata, md5: String, progress: ProgressReporter? = nil) throws {
        self.reference = reference
        self.data = data
        self.progress = progress
        self.contentType = metadata.contentType ?? "application/octet-stream"
        self.metadataJSON = try metadata.writableJSON(name: reference.fullPath, md5Hash: md5)
    }

    var storage: Storage { reference.storage }

    /// Opens a session; returns its URL.
    func start() async throws -> URL {
        let answer = try await storage.send(
            "POST", storage.objectsURL(bucket: reference.bucket) + "?name=" + URLEncoding.component(reference.fullPath),
            headers: [
                "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                "X-Goog-Upload-Header-Content-Length": String(data.count), "X-Goog-Upload-Header-Content-Type": contentType,
                "Content-Type": "application/json; charset=utf-8",
            ],
            body: metadataJSON)
        guard answer.header("X-Goog-Upload-Status") == "active", let text = answer.header("X-Goog-Upload-URL"), let url = URL(string: text) else {
            throw StorageError.invalidResponse(status: answer.status)
        }
        return url
    }

    /// Sends the bytes from `offset` on and finalizes; resumes after failures.
    func send(session: URL, from offset: Int) async throws -> StorageMetadata {
        var offset = offset
        var chunk = storage.initialChunkSize
        var failures = 0
        while true {
            if Task.isCancelled {
                await cancel(session: session)
                throw StorageError.cancelled
            }
            let end = min(offset + chunk, data.count)
            let command = offset == data.count ? "finalize" : (end == data.count ? "upload, finalize" : "upload")
            do {
                if let done = try await sendChunk(session: session, range: offset..<end, command: command) { return done }
                offset = end
                progress?.confirm(Int64(end))  // the server has the chunk, whatever URLSession reported
                failures = 0
                chunk = min(chunk * 2, Storage.maxChunkSize)
            } catch let error as StorageError where error.code == .cancelled {
                await cancel(session: session)
                throw error
            } catch let error as StorageError where Self.isRetryable(error) {
                failures += 1
                guard failures <= Storage.maxRetries else {
                    throw StorageError(
                        code: .retryLimitExceeded, message: "The upload failed \(failures) times in a row.", status: error.status, cause: error)
                }
                try await backOff(failures, session: session)
                // Ask where the server is (it may have the chunk, or even the whole object).
                guard let status = try? await query(session: session) else { continue }
                if let done = status.final { return done }
                offset = Int(status.received)
                progress?.confirm(status.received)
                chunk = storage.initialChunkSize
            }
        }
    }

    /// One chunk; the object's metadata when this finalized it.
    func sendChunk(session: URL, range: Range<Int>, command: String) async throws -> StorageMetadata? {
        let answer = try await storage.send(
            "POST", session.absoluteString,
            headers: ["X-Goog-Upload-Command": command, "X-Goog-Upload-Offset": String(range.lowerBound), "Content-Type": "application/octet-stream"],
            body: data.subdata(in: range), sent: progress?.requestSent(from: range.lowerBound))
        switch answer.header("X-Goog-Upload-Status") {
        case "final": return try StorageMetadata.decode(answer.body, status: answer.status)
        case "active": return nil
        default: throw StorageError.invalidResponse(status: answer.status)
        }
    }

    /// How many bytes the server has, or the object if the upload is already final.
    func query(session: URL) async throws -> (received: Int64, final: StorageMetadata?) {
        let answer = try await storage.send("POST", session.absoluteString, headers: ["X-Goog-Upload-Command": "query"])
        if answer.header("X-Goog-Upload-Status") == "final" {
            return (Int64(data.count), try StorageMetadata.decode(answer.body, status: answer.status))
        }
        guard let received = answer.header("X-Goog-Upload-Size-Received").flatMap({ Int64($0) }), received <= Int64(data.count) else {
            throw StorageError.invalidResponse(status: answer.status)
        }
        return (received, nil)
    }

    /// Drops the session on the server (best effort: the server also expires it). Sent with a
    /// plain data task, which the cancelled Swift task that asks for it cannot stop.
    func cancel(session: URL) async {
        let headers = (try? await storage.authorization()) ?? [:]
        var request = URLRequest(url: session, method: "POST", headers: headers)
        request.setValue("cancel", forHTTPHeaderField: "X-Goog-Upload-Command")
        storage.session.dataTask(with: request) { _, _, _ in }.resume()
    }

    /// Network failures, server errors and a busy session are worth another try; anything the
    /// server refused (rules, size, checksum) is not.
    static func isRetryable(_ error: StorageError) -> Bool {
        if error.code == .network { return true }
        guard let status = error.status else { return false }
        return status >= 500 || status == 408 || status == 409 || status == 429
    }

    /// 0.5 s, 1 s, 2 s, … (cancellation cancels the upload).
    private func backOff(_ attempt: Int, session: URL) async throws {
        do {
            try await Task.sleep(nanoseconds: UInt64(500_000_000) << UInt64(min(attempt - 1, 5)))
        } catch {
            await cancel(session: session)
            throw StorageError.cancelled
        }
    }
}
