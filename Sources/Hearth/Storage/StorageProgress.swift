import Synchronization

/// How much of a transfer is done: what ``StorageReference/putData(_:metadata:onProgress:)``
/// reports while it sends, and ``StorageReference/data(maxSize:onProgress:)`` and
/// ``StorageReference/write(toFile:onProgress:)`` while they receive.
public struct StorageProgress: Sendable, Hashable {
    /// Bytes sent or received so far. In a resumable upload this can move back when a chunk
    /// failed and the server kept less of it than was sent.
    public var completedBytes: Int64
    /// The data's size; -1 while it is not known (a download the server sends compressed, whose
    /// size shows only in the last report).
    public var totalBytes: Int64

    /// A progress report, for previews and tests; transfers make their own.
    public init(completedBytes: Int64, totalBytes: Int64) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, from 0 to 1 (1 for empty data, 0 while the size is not known).
    public var fractionCompleted: Double {
        totalBytes > 0 ? Double(completedBytes) / Double(totalBytes) : (totalBytes == 0 ? 1 : 0)
    }
}

/// Hands a transfer's progress to the caller's handler: one report per change, in order, none
/// after the call returned or threw.
///
/// URLSession reports sent bytes on its delegate queue, and those reports can still be queued
/// when the request's answer has already resumed the upload. So the handler runs under a lock;
/// URLSession's reports only ever move progress forward (only the server's word, a confirm, moves
/// it back); and ``finish(at:)`` or ``close()`` ends the reports.
final class ProgressReporter: Sendable {
    private struct State {
        var reported: Int64 = -1
        var confirmed: Int64 = 0
        var finished = false
    }

    /// -1 when not known (reports are then not capped).
    let totalBytes: Int64
    private let handler: @Sendable (StorageProgress) -> Void
    private let state = Mutex(State())

    init(totalBytes: Int64, handler: @escaping @Sendable (StorageProgress) -> Void) {
        self.totalBytes = totalBytes
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

    /// The transfer is done: reports `completed` bytes (default: the whole size) if that was not the
    /// last report, and drops every report after this one. When the size was not known, this last
    /// report gives `completed` as the size too.
    func finish(at completed: Int64? = nil) {
        deliver(completed ?? totalBytes, confirming: true, finishing: true)
    }

    /// The transfer failed or was cancelled: drops every later report, reporting nothing.
    func close() {
        state.withLock { $0.finished = true }
    }

    private func deliver(_ bytes: Int64, confirming: Bool, finishing: Bool) {
        let bytes = totalBytes >= 0 ? min(max(bytes, 0), totalBytes) : max(bytes, 0)
        // An unknown size becomes known with the last report.
        let total = finishing && totalBytes < 0 ? bytes : totalBytes
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = finishing
            if confirming {
                state.confirmed = bytes
                guard bytes != state.reported || total != totalBytes else { return }
            } else if bytes <= state.reported || bytes < state.confirmed {
                return
            }
            state.reported = bytes
            handler(StorageProgress(completedBytes: bytes, totalBytes: total))
        }
    }

    /// Reports for one request that sends bytes `offset...` of the data after `prefix` bytes of
    /// something else (a multipart body's metadata part).
    func requestSent(from offset: Int, after prefix: Int = 0) -> @Sendable (Int64) -> Void {
        { [self] sent in report(Int64(offset) + max(sent - Int64(prefix), 0)) }
    }
}
