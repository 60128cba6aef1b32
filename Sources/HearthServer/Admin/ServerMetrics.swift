import Synchronization

/// The server's counters for the overview (requests, writes) and their history.
final class ServerMetrics: Sendable {
    private let requests = Atomic<Int>(0)

    init() {}

    /// Counts one HTTP request.
    func countRequest() { requests.add(1, ordering: .relaxed) }
}
