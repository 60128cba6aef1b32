import Synchronization

/// How much of an upload has been sent: what ``StorageReference/putData(_:metadata:onProgress:)``
/// reports while it runs.
public struct StorageProgress: Sendable, Hashable {
    /// Bytes of the data sent so far. In a resumable upload this can move back when a chunk
    /// failed and the server kept less of it than was sent.
    public var completedBytes: Int64
    /// The data's size.
    public var totalBytes: Int64

    public init(completedBytes: Int64, totalBytes: Int64) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, from 0 to 1 (1 for empty data).
    public var fractionCompleted: Double {
        totalBytes > 0 ? Double(completedBytes) / Double(totalBytes) : 1
    }
}

/// Hands an upload's progress to the caller's handler: one report per change, in order, none
/// after the upload returned or threw.
///
/// URLSession reports sent bytes on its delegate queue, and those reports can still be queued
/// when the request's answer has already resumed the upload. So the handler runs under a lock;
/// URLSession's reports only ever move progress forward (only the server's word, a confirm, moves
/// it back); and ``finish()`` or ``close()`` ends the reports.
final class UploadProgressReporter: Sendable {
    private struct State {
        var reported: Int64 = -1
        var confirmed: Int64 = 0
        var finished = false
    }

    let totalBytes: Int64
    private let handler: @Sendable (StorageProgress) -> Void
    private let state = Mutex(State())

    init(totalBytes: Int, handler: @escaping @Sendable (StorageProgress) -> Void) {
        self.totalBytes = Int64(totalBytes)
        self.handler = handler
    }

    /// `sent` bytes of the data have gone out (URLSession's word); ignored unless it is past the
    /// last report (a session's delegate queue may be concurrent, and an earlier request's reports
    /// may come late).
    func report(_ sent: Int64) {
        deliver(sent, confirming: false, finishing: false)
    }

    /// The server has `received` bytes: reported even when it is less than was sent (a failed
    /// chunk), and later reports below it are dropped.
    func confirm(_ received: Int64) {
        deliver(received, confirming: true, finishing: false)
    }

    /// The upload is stored: reports the whole size if that was not the last report, and drops
    /// every report after this one.
    func finish() {
        deliver(totalBytes, confirming: true, finishing: true)
    }

    /// The upload failed or was cancelled: drops every later report, reporting nothing.
    func close() {
        state.withLock { $0.finished = true }
    }

    private func deliver(_ bytes: Int64, confirming: Bool, finishing: Bool) {
        let bytes = min(max(bytes, 0), totalBytes)
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = finishing
            if confirming {
                state.confirmed = bytes
                guard bytes != state.reported else { return }
            } else if bytes <= state.reported || bytes < state.confirmed {
                return
            }
            state.reported = bytes
            handler(StorageProgress(completedBytes: bytes, totalBytes: totalBytes))
        }
    }

    /// Reports for one request that sends bytes `offset...` of the data after `prefix` bytes of
    /// something else (a multipart body's metadata part).
    func requestSent(from offset: Int, after prefix: Int = 0) -> @Sendable (Int64) -> Void {
        { [self] sent in report(Int64(offset) + max(sent - Int64(prefix), 0)) }
    }
}
