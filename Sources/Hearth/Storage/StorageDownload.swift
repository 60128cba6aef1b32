#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif
import Synchronization

/// Downloads whose bytes are seen as they arrive: for progress reports, and to stream an object
/// into a file instead of holding it in memory.
///
/// URLSession's async calls hand the body over only at the end, and on Apple platforms they do
/// not pass received bytes to a task's delegate. So these downloads run as plain data tasks of a
/// session whose delegate is this router (``Storage`` makes that session from its own session's
/// configuration); each task's events go to its ``DownloadTransfer``.
final class DownloadRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Mutex<[Int: DownloadTransfer]>([:])

    /// Runs `request` on `session` (whose delegate is this router) into `transfer`; the task is
    /// cancelled when the calling task is.
    func run(_ request: URLRequest, on session: URLSession, into transfer: DownloadTransfer) async throws -> HTTPExchange {
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        transfers.withLock { $0[id] = transfer }
        defer { transfers.withLock { $0[id] = nil } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A task made and never resumed would keep the session from ever being invalidated.
                if transfer.start(continuation) { task.resume() } else { task.cancel() }
            }
        } onCancel: {
            if transfer.cancel() { task.cancel() }
        }
    }

    private func transfer(_ task: URLSessionTask) -> DownloadTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let go = transfer(dataTask)?.received(response) ?? true
        completionHandler(go ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask) else { return }
        if !transfer.received(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(task)?.completed(error)
    }
}

/// One download's state: the answer's head, where its bytes go, and the caller waiting for it.
final class DownloadTransfer: Sendable {
    /// Where a successful answer's bytes go.
    enum Sink {
        /// Kept in memory, failing with ``StorageError/Code/downloadSizeExceeded`` past `maxSize` bytes.
        case memory(maxSize: Int64)
        /// Written to the file behind the handle, and hashed on the way (MD5).
        case file(FileHandle)
    }

    /// The most bytes of an error answer's body kept for the error's message.
    static let errorBodyLimit = 64 * 1024

    private struct State {
        var sink: Sink
        var response: HTTPURLResponse?
        var body = Data()
        var received: Int64 = 0
        var md5 = MD5()
        /// Why the transfer stopped early (a size limit, a file write), thrown instead of URLSession's cancellation.
        var failure: StorageError?
        var continuation: CheckedContinuation<HTTPExchange, any Error>?
        var started = false
        var cancelled = false
        var reporter: ProgressReporter?
    }

    private let state: Mutex<State>
    private let onProgress: (@Sendable (StorageProgress) -> Void)?

    init(sink: Sink, onProgress: (@Sendable (StorageProgress) -> Void)?) {
        state = Mutex(State(sink: sink))
        self.onProgress = onProgress
    }

    /// Keeps the caller's continuation; false (after failing it) when the caller was cancelled first.
    func start(_ continuation: CheckedContinuation<HTTPExchange, any Error>) -> Bool {
        let go = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.continuation = continuation
            s.started = true
            return true
        }
        if !go { continuation.resume(throwing: CancellationError()) }
        return go
    }

    /// The caller was cancelled; true when the task has started and must be cancelled.
    ///
    /// URLSession carries a task's cancellation out later, on its own queue (on Linux, a body that
    /// has already arrived still completes without an error), so from here on the transfer refuses
    /// the answer, drops every byte, and fails with `CancellationError` whatever URLSession says.
    func cancel() -> Bool {
        state.withLock { s in
            s.cancelled = true
            return s.started
        }
    }

    // The reporter's handler is the app's code, and it may cancel the download (which takes this
    // transfer's lock), so reports go out after the lock is released.

    /// Takes the answer's head; false when the transfer was cancelled and the answer must be refused.
    func received(_ response: URLResponse) -> Bool {
        let (go, reporter) = state.withLock { s -> (Bool, ProgressReporter?) in
            guard !s.cancelled else { return (false, nil) }
            guard let http = response as? HTTPURLResponse else { return (true, nil) }
            s.response = http
            guard (200..<300).contains(http.statusCode), let onProgress else { return (true, nil) }
            s.reporter = ProgressReporter(totalBytes: Self.size(of: http), handler: onProgress)
            return (true, s.reporter)
        }
        reporter?.report(0)
        return go
    }

    /// Takes a piece of the body; false when the transfer must stop (see ``completed(_:)``).
    func received(_ data: Data) -> Bool {
        let (go, reporter, received) = state.withLock { s -> (Bool, ProgressReporter?, Int64) in
            guard s.failure == nil, !s.cancelled else { return (false, nil, 0) }
            guard let status = s.response?.statusCode, (200..<300).contains(status) else {
                s.body.append(data.prefix(max(Self.errorBodyLimit - s.body.count, 0)))
                return (true, nil, 0)
            }
            switch s.sink {
            case .memory(let maxSize):
                guard Int64(data.count) <= maxSize - s.received else {
                    s.failure = StorageError(
                        code: .downloadSizeExceeded, message: "The object is larger than the \(maxSize) bytes allowed.", status: status)
                    return (false, nil, 0)
                }
                s.body.append(data)
            case .file(let handle):
                do {
                    try handle.write(contentsOf: data)
                } catch {
                    s.failure = StorageError.localFile("The file could not be written.", cause: error)
                    return (false, nil, 0)
                }
                s.md5.update(data)
            }
            s.received += Int64(data.count)
            return (true, s.reporter, s.received)
        }
        reporter?.report(received)
        return go
    }

    func completed(_ error: (any Error)?) {
        let (continuation, result) = state.withLock { s -> (CheckedContinuation<HTTPExchange, any Error>?, Result<HTTPExchange, any Error>) in
            defer { s.continuation = nil }
            if let failure = s.failure { return (s.continuation, .failure(failure)) }
            if s.cancelled { return (s.continuation, .failure(CancellationError())) }
            if let error { return (s.continuation, .failure(error)) }
            guard let response = s.response else { return (s.continuation, .failure(URLError(.badServerResponse))) }
            return (s.continuation, Result { try HTTPExchange(s.body, response) })
        }
        if case .failure = result { closeReports() }
        continuation?.resume(with: result)
    }

    /// The finished file's MD5, base64 (the form of `md5Hash` and `x-goog-hash`).
    var fileMD5: String {
        state.withLock { s in
            var md5 = s.md5
            return Data(md5.finalize()).base64EncodedString()
        }
    }

    /// Reports the whole download as done (the caller's last report).
    func finish() {
        let (reporter, received) = state.withLock { ($0.reporter, $0.received) }
        reporter?.finish(at: received)
    }

    /// Ends the reports without a last one (the caller is about to throw).
    func closeReports() {
        state.withLock { $0.reporter }?.close()
    }

    /// The object's size as the answer gives it: a range's total, else the body's length; -1 when
    /// the bytes come compressed (their inflated size is known only at the end).
    static func size(of response: HTTPURLResponse) -> Int64 {
        if let encoding = response.value(forHTTPHeaderField: "Content-Encoding"), !encoding.isEmpty, encoding.lowercased() != "identity" {
            return -1
        }
        if let total = StorageReference.totalSize(response.value(forHTTPHeaderField: "Content-Range")) { return total }
        return response.expectedContentLength >= 0 ? response.expectedContentLength : -1
    }
}
