import Foundation
import Synchronization

/// An in-memory `ObjectCatalog` for tests and ephemeral servers.
public final class MemoryObjectCatalog: ObjectCatalog {
    struct State {
        var buckets: [String: BucketRecord] = [:]
        var objects: [String: [String: ObjectRecord]] = [:]
        var uploads: [String: (data: Data, created: Int64)] = [:]
        var outbox = MemoryOutbox()
    }

    private let state = Mutex(State())

    /// An empty catalog: no buckets.
    public init() {}

    /// Runs `body` on a copy under the catalog's lock and keeps the copy only if `body` returns (all or nothing).
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try state.withLock { s in
            let tx = Transaction(state: s)
            let result = try body(tx)
            s = tx.state
            return result
        }
    }

    /// Runs `body` under the catalog's lock; its writes are discarded.
    public func read<R: Sendable>(_ body: @Sendable (any ObjectTransaction) throws -> R) async throws -> R {
        try state.withLock { s in try body(Transaction(state: s)) }
    }

    /// Works on a copy; the catalog keeps it only if the body returns normally (all or nothing).
    final class Transaction: ObjectTransaction, MemoryOutboxHost {
        var outbox: MemoryOutbox {
            get { state.outbox }
            set { state.outbox = newValue }
        }

        var state: State

        init(state: State) { self.state = state }

        func bucket(_ name: String) throws -> BucketRecord? { state.buckets[name] }
        func buckets() throws -> [BucketRecord] { state.buckets.values.sorted { $0.name.utf8Precedes($1.name) } }
        func saveBucket(_ bucket: BucketRecord) throws { state.buckets[bucket.name] = bucket }
        func deleteBucket(_ name: String) throws {
            state.buckets[name] = nil
            state.objects[name] = nil
        }
        func hasObjects(bucket: String) throws -> Bool { !(state.objects[bucket]?.isEmpty ?? true) }

        func object(bucket: String, name: String) throws -> ObjectRecord? { state.objects[bucket]?[name] }
        func saveObject(_ object: ObjectRecord) throws { state.objects[object.bucket, default: [:]][object.name] = object }
        func deleteObject(bucket: String, name: String) throws { state.objects[bucket]?[name] = nil }

        func objects(bucket: String, from lower: String, inclusive: Bool, before upper: String?, limit: Int) throws -> [ObjectRecord] {
            let all = (state.objects[bucket] ?? [:]).values.filter { o in
                (inclusive ? !o.name.utf8Precedes(lower) : lower.utf8Precedes(o.name)) && (upper.map { o.name.utf8Precedes($0) } ?? true)
            }
            return Array(all.sorted { $0.name.utf8Precedes($1.name) }.prefix(limit))
        }

        func upload(_ id: String) throws -> Data? { state.uploads[id]?.data }
        func saveUpload(_ id: String, data: Data, created: Int64) throws { state.uploads[id] = (data, created) }
        func deleteUpload(_ id: String) throws { state.uploads[id] = nil }
        func deleteUploads(createdBefore: Int64) throws { state.uploads = state.uploads.filter { $0.value.created >= createdBefore } }
    }
}
