import Synchronization

/// Request counters of one route of the routing table: answers by status class and a latency histogram.
///
/// Recording a request costs three relaxed atomic adds (its status class, its latency bucket, the latency sum); the
/// count is the sum of the buckets, and the histogram's cumulative form is made only when `/metrics` is read.
final class RouteCounters: Sendable {
    /// The route's name in the table (`database`, `auth`, …), the `route` label.
    let name: String
    /// Answers by status class: 1xx … 5xx at 0 … 4.
    private let classes: InlineArray<5, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    /// Answers by latency bucket (``HTTPMetrics/bucketBounds``, then one for slower), not cumulative.
    private let buckets: InlineArray<16, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    /// The sum of the latencies, in nanoseconds.
    private let nanos = Atomic<Int>(0)

    /// Counters at zero for the route `name`.
    init(name: String) { self.name = name }

    /// Counts one answer with `status` that took `elapsed` nanoseconds to produce.
    func record(status: Int, elapsed: UInt64) {
        let statusClass = min(max(status / 100, 1), 5) - 1
        classes[statusClass].add(1, ordering: .relaxed)
        var bucket = 0
        while bucket < HTTPMetrics.bucketNanos.count && elapsed > HTTPMetrics.bucketNanos[bucket] { bucket += 1 }
        buckets[bucket].add(1, ordering: .relaxed)
        nanos.add(Int(truncatingIfNeeded: elapsed), ordering: .relaxed)
    }

    /// Answers so far by status class (`1xx` … `5xx`), leaving out classes with none.
    var byClass: [(String, Int)] {
        (0..<5).compactMap { i in
            let n = classes[i].load(ordering: .relaxed)
            return n == 0 ? nil : ("\(i + 1)xx", n)
        }
    }

    /// The histogram as Prometheus wants it: cumulative counts for each bound and `+Inf`, the sum in seconds, the count.
    var histogram: (cumulative: [Int], sumSeconds: Double, count: Int) {
        var running = 0
        var cumulative: [Int] = []
        for i in 0..<16 {
            running += buckets[i].load(ordering: .relaxed)
            cumulative.append(running)
        }
        return (cumulative, Double(nanos.load(ordering: .relaxed)) / 1e9, running)
    }
}

/// The HTTP request metrics of one server: one ``RouteCounters`` per route name, made when the responder is built
/// (never on the request path).
final class HTTPMetrics: Sendable {
    /// The histogram's upper bounds in seconds (the `le` labels), ascending; slower answers go to `+Inf`.
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    /// ``bucketBounds`` in nanoseconds.
    static let bucketNanos: [UInt64] = bucketBounds.map { UInt64($0 * 1e9) }
    /// The counters by route name, in the order they were first asked for.
    private let routes = Mutex<[RouteCounters]>([])

    /// No routes yet.
    init() {}

    /// The counters of the route `name`, made on first use.
    func counters(_ name: String) -> RouteCounters {
        routes.withLock { list in
            if let found = list.first(where: { $0.name == name }) { return found }
            let made = RouteCounters(name: name)
            list.append(made)
            return made
        }
    }

    /// Every route's counters, in the order they were made.
    var all: [RouteCounters] { routes.withLock { $0 } }
}
