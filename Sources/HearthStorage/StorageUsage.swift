import HearthStore
import Synchronization

/// The bytes and number of stored objects, for `/metrics`: changed by ``StorageService`` as each upload or delete
/// commits (two relaxed atomic adds), and measured from the catalog once, on first use (``total(catalog:)``),
/// instead of summing the catalog at every scrape.
///
/// The changes counted are this process's; where several nodes share one catalog (PostgreSQL) each node's gauge
/// sees only its own changes after its first measurement.
public final class StorageUsage: Sendable {
    /// Bytes added minus bytes removed since the process started.
    private let bytesDelta = Atomic<Int64>(0)
    /// Objects added minus objects removed since the process started.
    private let objectsDelta = Atomic<Int>(0)
    /// The catalog's totals minus the deltas when it was measured; nil until then.
    private let base = Mutex<(bytes: Int64, objects: Int)?>(nil)

    /// Nothing counted yet.
    public init() {}

    /// An object was stored: `old` is the size of the object it replaced (nil: a new name).
    func stored(size: Int64, replacing old: Int64?) {
        bytesDelta.add(size - (old ?? 0), ordering: .relaxed)
        if old == nil { objectsDelta.add(1, ordering: .relaxed) }
    }

    /// An object of `size` bytes was deleted.
    func deleted(size: Int64) {
        bytesDelta.add(-size, ordering: .relaxed)
        objectsDelta.add(-1, ordering: .relaxed)
    }

    /// The stored bytes and objects now. The first call measures the catalog (every object once, in pages of 1000);
    /// later calls only read the counters. An upload that commits while the first measurement runs may be counted
    /// twice or not at all, once.
    public func total(catalog: any ObjectCatalog) async throws -> (bytes: Int64, objects: Int) {
        if let known = base.withLock({ $0 }) { return add(known) }
        let before = (bytesDelta.load(ordering: .relaxed), objectsDelta.load(ordering: .relaxed))
        let measured = try await Self.measure(catalog)
        let found = (bytes: measured.bytes - before.0, objects: measured.objects - before.1)
        let settled = base.withLock { b in
            if b == nil { b = found }
            return b!
        }
        return add(settled)
    }

    /// `base` plus the deltas.
    private func add(_ base: (bytes: Int64, objects: Int)) -> (bytes: Int64, objects: Int) {
        (base.bytes + bytesDelta.load(ordering: .relaxed), base.objects + objectsDelta.load(ordering: .relaxed))
    }

    /// Every object's size summed, bucket by bucket, a page at a time.
    private static func measure(_ catalog: any ObjectCatalog) async throws -> (bytes: Int64, objects: Int) {
        var bytes: Int64 = 0
        var objects = 0
        for bucket in try await catalog.read({ try $0.buckets() }) {
            var after = ""
            var inclusive = true
            while true {
                let (from, first) = (after, inclusive)
                let page = try await catalog.read { try $0.objects(bucket: bucket.name, from: from, inclusive: first, before: nil, limit: 1000) }
                for record in page { bytes += record.size }
                objects += page.count
                guard page.count == 1000, let last = page.last else { break }
                after = last.name
                inclusive = false
            }
        }
        return (bytes, objects)
    }
}
