import Foundation
import HearthStore
import ServiceLifecycle
import Synchronization

/// The server's counters for the overview (requests, writes) and their history: the last hour in 10-second buckets,
/// kept in memory. Counting a request is one relaxed atomic add; writes are counted where the database commits
/// (``CommittedWrites``, shared by every server of the process). ``sample(now:)`` turns the counters into history: a
/// ``MetricsSampler`` calls it every second, and the overview once more when it is asked.
final class ServerMetrics: Sendable {
    /// One reading of the running totals.
    struct Reading: Sendable {
        /// When, in milliseconds since 1970.
        var t: Int64
        /// Requests answered since the server started.
        var requests: Int
        /// Writes committed since the server started.
        var writes: Int
    }

    /// One 10-second bucket of the history.
    struct Bucket: Sendable, Equatable {
        /// The bucket's start, in milliseconds since 1970 (a multiple of 10 000).
        var t: Int64
        /// Requests counted in the bucket.
        var requests: Int
        /// Writes committed in the bucket.
        var writes: Int
        /// The most realtime connections seen in the bucket.
        var connections: Int
    }

    /// What ``sample(now:)`` keeps.
    private struct State {
        /// Readings of about the last 12 seconds, oldest first: the rates are taken over them.
        var recent: [Reading] = []
        /// The history, oldest first, at most ``ServerMetrics/bucketCount``.
        var buckets: [Bucket] = []
        /// The totals when the newest bucket began.
        var bucketStart = Reading(t: 0, requests: 0, writes: 0)
    }

    /// The history's bucket length, in milliseconds.
    static let bucketMillis: Int64 = 10_000
    /// How many buckets the history keeps: one hour.
    static let bucketCount = 360

    /// Requests answered since the server started.
    private let requests = Atomic<Int>(0)
    /// The process's committed writes when the server started.
    private let writesAtStart: Int
    /// The readings and the history.
    private let state = Mutex(State())
    /// The realtime connections open now.
    let connections: @Sendable () -> Int
    /// The database listeners (realtime and SSE) open now.
    let listeners: @Sendable () -> Int
    /// The cached sizes of the stores (see ``AdminController/overview(_:)``).
    let sizes = SizeCache()
    /// Requests by route, status class and latency, for `/metrics`.
    let http = HTTPMetrics()
    /// Makes the ids of requests that came without a sane `X-Request-Id`.
    let requestIDs = RequestID.Generator()
    /// `/metrics`, `/healthz` and `/readyz`, wired by the server (``OperationsEndpoints/configure(metricsToken:isAdmin:ready:)``).
    let operations = OperationsEndpoints()
    /// The server's limits and its `maxOpenNamespaces`, for `/metrics` (set once by the server; nil: not shown).
    let limits = Mutex<(limits: RequestLimits, openDatabases: Int)?>(nil)
    /// The request limiter for requests no pipeline handler checked (HTTP/2 streams; nil: no request rate is limited).
    let requestLimiter = Mutex<RequestLimiter?>(nil)
    /// When the server started, in milliseconds since 1970.
    let startedAt = Int64(Date().timeIntervalSince1970 * 1000)

    /// Metrics that count from now; `connections` and `listeners` are read at each sample and each overview.
    init(connections: @escaping @Sendable () -> Int = { 0 }, listeners: @escaping @Sendable () -> Int = { 0 }) {
        self.connections = connections
        self.listeners = listeners
        writesAtStart = CommittedWrites.total
    }

    /// Counts one HTTP request.
    func countRequest() { requests.add(1, ordering: .relaxed) }

    /// The running totals now.
    func reading(now: Int64) -> Reading {
        Reading(t: now, requests: requests.load(ordering: .relaxed), writes: CommittedWrites.total - writesAtStart)
    }

    /// Records the totals at `now` (milliseconds since 1970) into the rates' window and the history.
    func sample(now: Int64) {
        let reading = reading(now: now)
        let connections = connections()
        state.withLock { s in
            if let last = s.recent.last, reading.t - last.t < 500 {
                s.recent[s.recent.count - 1] = Reading(t: last.t, requests: reading.requests, writes: reading.writes)
            } else {
                s.recent.append(reading)
            }
            // Keep the newest reading at least 10 s old, and nothing older.
            while s.recent.count > 2 && s.recent[1].t <= now - 10_000 { s.recent.removeFirst() }
            let start = now - now % Self.bucketMillis
            if let last = s.buckets.last, last.t == start {
                s.buckets[s.buckets.count - 1].requests = reading.requests - s.bucketStart.requests
                s.buckets[s.buckets.count - 1].writes = reading.writes - s.bucketStart.writes
                s.buckets[s.buckets.count - 1].connections = max(last.connections, connections)
            } else {
                // A new bucket: what came since the last reading of the previous one belongs to this one.
                s.bucketStart = s.buckets.isEmpty ? reading : Reading(
                    t: start, requests: s.bucketStart.requests + (s.buckets.last?.requests ?? 0),
                    writes: s.bucketStart.writes + (s.buckets.last?.writes ?? 0))
                s.buckets.append(Bucket(
                    t: start, requests: reading.requests - s.bucketStart.requests, writes: reading.writes - s.bucketStart.writes,
                    connections: connections))
                let oldest = start - Int64(Self.bucketCount - 1) * Self.bucketMillis
                s.buckets.removeAll { $0.t < oldest }
            }
        }
    }

    /// Requests and writes per second over about the last 10 seconds (0 before two readings exist).
    func rates() -> (requests: Double, writes: Double) {
        state.withLock { s in
            guard let first = s.recent.first, let last = s.recent.last, last.t > first.t else { return (0, 0) }
            let seconds = Double(last.t - first.t) / 1000
            return (Double(last.requests - first.requests) / seconds, Double(last.writes - first.writes) / seconds)
        }
    }

    /// The history, oldest bucket first.
    var history: [Bucket] { state.withLock { $0.buckets } }
}

/// Sizes that are slow to measure (a folder walk, a table scan), measured at most every few seconds.
final class SizeCache: Sendable {
    /// A measurement and when it was taken.
    struct Entry: Sendable {
        /// Milliseconds since 1970.
        var at: Int64
        /// Bytes per namespace.
        var namespaces: [String: Int64]
        /// Bytes of stored files (nil: no storage, or not measurable).
        var storage: Int64?
    }

    /// The latest measurement.
    private let entry = Mutex<Entry?>(nil)

    /// The cached entry when it is younger than `maxAge` milliseconds.
    func fresh(now: Int64, maxAge: Int64) -> Entry? {
        entry.withLock { e in e.flatMap { now - $0.at < maxAge ? $0 : nil } }
    }

    /// Replaces the cached entry.
    func store(_ new: Entry) { entry.withLock { $0 = new } }
}

/// Samples ``ServerMetrics`` every second while the server runs, so the overview's history covers the time nobody looked.
struct MetricsSampler: Service {
    /// What to sample.
    let metrics: ServerMetrics

    /// Samples until graceful shutdown or cancellation.
    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                metrics.sample(now: Int64(Date().timeIntervalSince1970 * 1000))
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
