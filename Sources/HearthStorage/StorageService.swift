import Foundation
import Synchronization
public import HearthFiles
public import HearthStore

/// Hearth's file storage: object metadata in an `ObjectCatalog`, bytes in a `BlobStore`. Both
/// HTTP surfaces (Firebase Storage v0 and the Cloud Storage JSON API) go through these
/// operations, so an object looks the same whichever API wrote it.
///
/// A blob is written (and synced) before the metadata that points at it commits, and an old
/// blob is deleted only after the metadata stopped pointing at it: a crash can leave an
/// unreferenced blob behind, never an object without its bytes.
public final class StorageService: Sendable {
    /// Object metadata (names, generations, metadata, download tokens) and resumable sessions.
    public let catalog: any ObjectCatalog
    /// The objects' bytes, addressed by blob id.
    public let blobs: any BlobStore
    /// The bucket Firebase apps use by default (`<project>.appspot.com`).
    public let defaultBucket: String
    /// Milliseconds since 1970.
    package let clock: @Sendable () -> Int64
    private let lastSweep = Mutex<Int64>(0)
    /// Functions to run when objects are finalized or deleted (server functions install them).
    public let events = EventHook()
    /// Stored bytes and objects, for `/metrics`.
    public let usage = StorageUsage()

    /// The largest object Hearth accepts (5 TiB is Cloud Storage's; a single server is smaller).
    package static let maxObjectBytes: Int64 = 64 * 1024 * 1024 * 1024

    /// True at most once an hour: time to drop abandoned upload sessions.
    package func sweepDue(now: Int64) -> Bool {
        lastSweep.withLock { last in
            guard now - last >= 3_600_000 else { return false }
            last = now
            return true
        }
    }

    /// A service over `catalog` and `blobs`; `clock` gives milliseconds since 1970 (object times, session expiry).
    public init(
        catalog: any ObjectCatalog, blobs: any BlobStore, defaultBucket: String,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.catalog = catalog
        self.blobs = blobs
        self.defaultBucket = defaultBucket
        self.clock = clock
    }

    /// Generation / metageneration preconditions (`ifGenerationMatch=0` = only if absent).
    package struct Preconditions: Sendable {
        package var ifGenerationMatch: Int64?
        package var ifGenerationNotMatch: Int64?
        package var ifMetagenerationMatch: Int64?
        package var ifMetagenerationNotMatch: Int64?
        /// A request that names one revision (`generation` on objects.get/patch/delete,
        /// `sourceGeneration` on copy): any other revision is a 404, as that revision is gone.
        package var generation: Int64?

        /// The `if…` parameters; `source` reads copy's and rewrite's `ifSource…` ones.
        package init(_ query: [String: String], source: Bool = false) throws {
            let prefix = source ? "ifSource" : "if"
            ifGenerationMatch = try Self.number(query, prefix + "GenerationMatch")
            ifGenerationNotMatch = try Self.number(query, prefix + "GenerationNotMatch")
            ifMetagenerationMatch = try Self.number(query, prefix + "MetagenerationMatch")
            ifMetagenerationNotMatch = try Self.number(query, prefix + "MetagenerationNotMatch")
        }

        /// The `if…` parameters and the revision named by `generationKey`.
        package init(_ query: [String: String], selecting generationKey: String, source: Bool = false) throws {
            try self.init(query, source: source)
            generation = try Self.number(query, generationKey)
        }

        package init() {}

        package static func number(_ query: [String: String], _ key: String) throws -> Int64? {
            guard let text = query[key] else { return nil }
            guard let n = Int64(text) else { throw StorageError.badRequest("Invalid argument: \(key) must be a number") }
            return n
        }

        package func check(_ current: ObjectRecord?) throws {
            if let g = generation, g != current?.generation {
                guard let current else { throw StorageError.notFound() }
                throw StorageError.noSuchObject(current.bucket, current.name)
            }
            let generation = current?.generation ?? 0
            if let g = ifGenerationMatch, g != generation { throw StorageError.preconditionFailed }
            if let g = ifGenerationNotMatch, g == generation { throw StorageError.preconditionFailed }
            if let m = ifMetagenerationMatch, m != (current?.metageneration ?? 0) { throw StorageError.preconditionFailed }
            if let m = ifMetagenerationNotMatch, m == (current?.metageneration ?? 0) { throw StorageError.preconditionFailed }
        }
    }

    /// Names Cloud Storage accepts: 1–1024 bytes of UTF-8, no CR or LF, not `.` or `..`.
    package static func checkName(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 1024 else { throw StorageError.badRequest("Object names must be 1-1024 bytes") }
        guard !name.contains("\r") && !name.contains("\n") else { throw StorageError.badRequest("Object names cannot contain CR or LF") }
        guard name != "." && name != ".." else { throw StorageError.badRequest("Object names cannot be . or ..") }
    }

    /// Makes `blob` the bytes of `bucket/name`, replacing any previous object. `authorize` sees the
    /// object as it was and as it will be, inside the transaction, and may throw to refuse.
    package func store(
        bucket: String, name: String, blob: BlobInfo, fields: ObjectFields, preconditions: Preconditions, firebase: Bool,
        authorize: @escaping @Sendable (ObjectRecord?, ObjectRecord) throws -> Void = { _, _ in }
    ) async throws -> ObjectRecord {
        do {
            try Self.checkName(name)
            try verify(blob.digests, against: fields)
        } catch {
            _ = try? await blobs.delete(blob.id)
            throw error
        }
        let now = clock()
        let hook = events.functions
        let result: (ObjectRecord, ObjectRecord?)
        do {
            result = try await catalog.transaction { tx in
                let old = try tx.object(bucket: bucket, name: name)
                try preconditions.check(old)
                var record = ObjectRecord(
                    bucket: bucket, name: name, generation: max(now * 1000, (old?.generation ?? 0) + 1), blob: blob.id.rawValue,
                    size: blob.digests.size, md5Hash: blob.digests.md5Base64, crc32c: blob.digests.crc32cBase64, timeCreated: now, updated: now)
                try fields.apply(to: &record, keepTokens: firebase)
                if record.contentType == nil { record.contentType = "application/octet-stream" }
                if firebase && record.downloadTokens.isEmpty { record.downloadTokens = [UUID().uuidString.lowercased()] }
                try authorize(old, record)
                if try tx.bucket(bucket) == nil { try tx.saveBucket(BucketRecord(name: bucket, timeCreated: now)) }
                try tx.saveObject(record)
                if let hook {
                    // As in Cloud Storage, replacing an object deletes the old one.
                    if let old { try Self.enqueue(old, for: hook.deleted, in: tx, at: now) }
                    try Self.enqueue(record, for: hook.created, in: tx, at: now)
                }
                return (record, old)
            }
        } catch {
            // A repeated finalize hands the same blob again: delete it only if no object names it.
            let named = try? await catalog.read { tx in try tx.object(bucket: bucket, name: name)?.blob == blob.id.rawValue }
            if named != true { _ = try? await blobs.delete(blob.id) }
            throw error
        }
        if let old = result.1, let id = BlobID(old.blob), old.blob != blob.id.rawValue { _ = try? await blobs.delete(id) }
        usage.stored(size: result.0.size, replacing: result.1?.size)
        hook?.wake()
        return result.0
    }

    /// Outbox events for `record`, in the change's own transaction.
    private static func enqueue(_ record: ObjectRecord, for functions: [String], in tx: any ObjectTransaction, at now: Int64) throws {
        guard !functions.isEmpty else { return }
        let payload = Array(try JSONEncoder().encode(record))
        for function in functions { try tx.enqueueEvent(function: function, payload: payload, at: now) }
    }

    /// Refuses bytes whose digests differ from the ones the client sent.
    package func verify(_ digests: BlobDigests, against fields: ObjectFields) throws {
        if let md5 = fields.md5Hash, md5 != digests.md5Base64 {
            throw StorageError.badRequest("Provided MD5 hash \"\(md5)\" doesn't match calculated MD5 hash \"\(digests.md5Base64)\".")
        }
        if let crc = fields.crc32c, crc != digests.crc32cBase64 {
            throw StorageError.badRequest("Provided CRC32C \"\(crc)\" doesn't match calculated CRC32C \"\(digests.crc32cBase64)\".")
        }
    }

    package func object(bucket: String, name: String) async throws -> ObjectRecord? {
        try await catalog.read { tx in try tx.object(bucket: bucket, name: name) }
    }

    /// Changes an object's metadata in place (bytes untouched); bumps metageneration.
    package func update(
        bucket: String, name: String, preconditions: Preconditions = Preconditions(),
        authorize: @escaping @Sendable (ObjectRecord) throws -> Void = { _ in },
        _ change: @escaping @Sendable (inout ObjectRecord) throws -> Void
    ) async throws -> ObjectRecord {
        let now = clock()
        return try await catalog.transaction { tx in
            guard var record = try tx.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
            try preconditions.check(record)
            try authorize(record)
            let before = record
            try change(&record)
            if record != before {
                record.metageneration += 1
                record.updated = max(now, record.updated)
            }
            try tx.saveObject(record)
            return record
        }
    }

    /// Removes an object; its bytes go after the metadata.
    package func delete(
        bucket: String, name: String, preconditions: Preconditions = Preconditions(),
        authorize: @escaping @Sendable (ObjectRecord) throws -> Void = { _ in }
    ) async throws {
        let hook = events.functions
        let now = clock()
        let removed = try await catalog.transaction { tx in
            guard let record = try tx.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
            try preconditions.check(record)
            try authorize(record)
            try tx.deleteObject(bucket: bucket, name: name)
            if let hook { try Self.enqueue(record, for: hook.deleted, in: tx, at: now) }
            return record
        }
        hook?.wake()
        usage.deleted(size: removed.size)
        if let id = BlobID(removed.blob) { _ = try? await blobs.delete(id) }
    }

    /// Copies `source` to `bucket/name` (new blob, same bytes); `fields` override its metadata.
    package func copy(_ source: ObjectRecord, to bucket: String, name: String, fields: ObjectFields, preconditions: Preconditions) async throws
        -> ObjectRecord
    {
        guard let id = BlobID(source.blob) else { throw StorageError.noSuchObject(source.bucket, source.name) }
        let copied = try await blobs.copy(id)
        var merged = ObjectFields()
        for (_, path) in ObjectFields.stringFields { merged[keyPath: path] = .some(Self.value(source, path)) }
        merged.metadata = .some(source.metadata.mapValues { Optional($0) })
        for (_, path) in ObjectFields.stringFields where fields[keyPath: path] != nil { merged[keyPath: path] = fields[keyPath: path] }
        if let extra = fields.metadata { merged.metadata = .some(extra) }
        let digests = BlobDigests(size: source.size, md5: Array(Data(base64Encoded: source.md5Hash) ?? Data()), crc32c: CRC32C.value(base64: source.crc32c) ?? 0)
        return try await store(
            bucket: bucket, name: name, blob: BlobInfo(id: copied, digests: digests), fields: merged, preconditions: preconditions,
            firebase: false)
    }

    private static func value(_ record: ObjectRecord, _ path: WritableKeyPath<ObjectFields, String??>) -> String? {
        switch path {
        case \.contentType: record.contentType
        case \.contentEncoding: record.contentEncoding
        case \.contentDisposition: record.contentDisposition
        case \.contentLanguage: record.contentLanguage
        case \.cacheControl: record.cacheControl
        default: record.customTime
        }
    }
}
