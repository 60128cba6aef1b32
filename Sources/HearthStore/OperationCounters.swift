import Synchronization

/// How many writes each group commit carried: ``Database`` commits every write that queued while the previous
/// commit ran as one transaction, and records the batch's size here (process-wide, like ``CommittedWrites``).
/// `/metrics` exports it as a histogram.
public enum CommitBatches {
    /// The process's histogram.
    private static let process = BatchHistogram()

    /// Counts one committed batch of `size` writes.
    public static func record(_ size: Int) { process.record(size) }

    /// See ``BatchHistogram/histogram``.
    public static var histogram: (cumulative: [Int], sum: Int, count: Int) { process.histogram }
}

/// A histogram of batch sizes with the bounds ``bounds``: recording is one relaxed atomic add for the bucket and
/// one for the sum; the count is the buckets' total, and the cumulative form is made only when read.
public final class BatchHistogram: Sendable {
    /// The upper bounds (items per batch), ascending; bigger batches go to `+Inf`.
    public static let bounds: [Int] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    /// Batches by bucket (``bounds``, then one for bigger), not cumulative.
    private let buckets: InlineArray<11, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    /// Items in every batch together.
    private let items = Atomic<Int>(0)

    /// An empty histogram.
    public init() {}

    /// Counts one batch of `size` items.
    public func record(_ size: Int) {
        var bucket = 0
        while bucket < Self.bounds.count && size > Self.bounds[bucket] { bucket += 1 }
        buckets[bucket].add(1, ordering: .relaxed)
        items.add(size, ordering: .relaxed)
    }

    /// Cumulative counts for each bound and `+Inf`, the items in all batches, and the batches.
    public var histogram: (cumulative: [Int], sum: Int, count: Int) {
        var running = 0
        var cumulative: [Int] = []
        for i in 0..<11 {
            running += buckets[i].load(ordering: .relaxed)
            cumulative.append(running)
        }
        return (cumulative, items.load(ordering: .relaxed), running)
    }
}

/// Requests the security rules refused, by product and operation, counted where the refusal is decided (the
/// database's read check and writer, the storage access check). Process-wide relaxed atomics, like ``CommittedWrites``.
public enum RuleDenials {
    /// The product whose rules refused.
    public enum Product: Int, Sendable, CaseIterable {
        /// The Realtime Database (REST, streaming and realtime WebSocket clients).
        case database
        /// Cloud Storage for Firebase.
        case storage

        /// The `product` label.
        public var label: String { self == .database ? "database" : "storage" }
    }

    /// What was refused.
    public enum Operation: Int, Sendable, CaseIterable {
        /// A read, query, listen, get or list.
        case read
        /// A write, update, delete or upload.
        case write

        /// The `op` label.
        public var label: String { self == .read ? "read" : "write" }
    }

    /// Refusals at `product * 2 + operation`.
    private static let counts: InlineArray<4, Atomic<Int>> = InlineArray { _ in Atomic(0) }

    /// Counts one refusal.
    public static func count(_ product: Product, _ operation: Operation) {
        counts[product.rawValue * 2 + operation.rawValue].add(1, ordering: .relaxed)
    }

    /// Refusals so far of `operation` on `product`.
    public static func total(_ product: Product, _ operation: Operation) -> Int {
        counts[product.rawValue * 2 + operation.rawValue].load(ordering: .relaxed)
    }
}

/// How many outbox events wait and how many gave up, counted up to a bound (see ``OutboxReader/outboxCounts(limit:)``).
public struct OutboxCounts: Sendable, Equatable {
    /// Live events: due now or waiting for a retry.
    public var waiting: Int
    /// Dead letters.
    public var dead: Int

    /// The counts.
    public init(waiting: Int = 0, dead: Int = 0) {
        self.waiting = waiting
        self.dead = dead
    }
}

extension OutboxReader {
    /// Live events and dead letters, each counted up to `limit` (a scrape must not walk a huge outbox). This
    /// default reads the events themselves; the SQLite outbox counts over its `(dead, next_at)` index instead.
    public func outboxCounts(limit: Int) throws -> OutboxCounts {
        OutboxCounts(waiting: try dueEvents(now: .max, limit: limit).count, dead: try deadEvents(after: .min, limit: limit).count)
    }
}
