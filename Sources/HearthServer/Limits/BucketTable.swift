import NIOCore
import Synchronization

/// Token buckets by key (a client address, a uid), bounded in number.
///
/// The table is split in shards, each behind its own lock held only for a dictionary lookup and a little
/// arithmetic (never across an `await`). A bucket that has refilled is the same as no bucket, so when a shard is
/// full its refilled buckets are dropped; if a flood of distinct keys leaves it over three quarters full even then,
/// the least recently used half is dropped too (those keys start again with a full bucket: memory stays bounded at
/// the price of some leniency towards whoever floods).
final class BucketTable: Sendable {
    /// One shard: its buckets behind a lock.
    private final class Shard: Sendable {
        /// The shard's buckets by key.
        let buckets = Mutex<[String: TokenBucket]>([:])
    }

    /// The shards; a key's is chosen by its hash.
    private let shards: [Shard]
    /// Most buckets kept per shard.
    private let shardCapacity: Int
    /// Monotonic nanoseconds.
    private let clock: @Sendable () -> UInt64

    /// A table of at most about `capacity` buckets (rounded up to a multiple of `shards`).
    init(capacity: Int = 65_536, shards: Int = 16, clock: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }) {
        let count = max(1, shards)
        self.shards = (0..<count).map { _ in Shard() }
        shardCapacity = max(4, (capacity + count - 1) / count)
        self.clock = clock
    }

    /// The most buckets the table holds.
    var capacity: Int { shardCapacity * shards.count }

    /// Takes a token from `key`'s bucket: nil when the request may go on, otherwise the whole seconds to wait.
    func take(_ key: String, limit: RateLimit) -> Int? {
        guard limit.isLimited else { return nil }
        let now = clock()
        let shard = shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
        let capacity = shardCapacity
        return shard.buckets.withLock { buckets -> Int? in
            if buckets[key] == nil, buckets.count >= capacity { Self.evict(&buckets, now: now, limit: limit, capacity: capacity) }
            var bucket = buckets[key] ?? TokenBucket(full: limit, now: now)
            let wait = bucket.take(now: now, limit: limit)
            buckets[key] = bucket
            return wait
        }
    }

    /// Buckets held now (for tests and the bound).
    var count: Int { shards.reduce(0) { $0 + $1.buckets.withLock { $0.count } } }

    /// Drops refilled buckets, then — still over three quarters of `capacity` — the least recently used half.
    private static func evict(_ buckets: inout [String: TokenBucket], now: UInt64, limit: RateLimit, capacity: Int) {
        buckets = buckets.filter { !$0.value.isFull(now: now, limit: limit) }
        guard buckets.count > capacity * 3 / 4 else { return }
        let times = buckets.values.map(\.updated).sorted()
        let median = times[times.count / 2]
        buckets = buckets.filter { $0.value.updated > median }
    }
}
