public import HearthCore

/// A stored object as rules see it (`resource`, and `request.resource` for writes).
///
/// Absent optional fields read as `null` in rules (`resource.contentType == null`), so a
/// condition such as `request.resource.contentType.matches('image/.*')` fails closed when the
/// upload names no type.
public struct StorageRulesResource: Sendable, Hashable {
    /// `bucket`.
    public var bucket: String
    /// `name`: the full object name, e.g. `users/alice/avatar.jpg`.
    public var name: String
    /// `size` in bytes.
    public var size: Int64
    /// `contentType`.
    public var contentType: String?
    /// `contentEncoding`.
    public var contentEncoding: String?
    /// `contentDisposition`.
    public var contentDisposition: String?
    /// `contentLanguage`.
    public var contentLanguage: String?
    /// `cacheControl`.
    public var cacheControl: String?
    /// `md5Hash` (base64).
    public var md5Hash: String?
    /// `crc32c` (base64 of the big-endian checksum).
    public var crc32c: String?
    /// `etag`.
    public var etag: String?
    /// `generation`.
    public var generation: Int64
    /// `metageneration`.
    public var metageneration: Int64
    /// `timeCreated`, milliseconds since the epoch.
    public var timeCreated: Int64
    /// `updated`, milliseconds since the epoch.
    public var updated: Int64
    /// `metadata`: the custom metadata, a JSON object (usually string → string).
    public var metadata: JSONValue

    /// An object; everything but its place and size has a default.
    public init(
        bucket: String, name: String, size: Int64, contentType: String? = nil, contentEncoding: String? = nil,
        contentDisposition: String? = nil, contentLanguage: String? = nil, cacheControl: String? = nil,
        md5Hash: String? = nil, crc32c: String? = nil, etag: String? = nil, generation: Int64 = 1,
        metageneration: Int64 = 1, timeCreated: Int64 = 0, updated: Int64 = 0, metadata: JSONValue = .object([])
    ) {
        self.bucket = bucket
        self.name = name
        self.size = size
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.contentDisposition = contentDisposition
        self.contentLanguage = contentLanguage
        self.cacheControl = cacheControl
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.etag = etag
        self.generation = generation
        self.metageneration = metageneration
        self.timeCreated = timeCreated
        self.updated = updated
        self.metadata = metadata
    }

    /// The rules value: a map with every documented field.
    var value: StorageValue {
        func text(_ s: String?) -> StorageValue { s.map(StorageValue.string) ?? .null }
        func time(_ ms: Int64) -> StorageValue { StorageTimestamp(millis: ms).map(StorageValue.timestamp) ?? .null }
        return .map(StorageMap([
            ("name", .string(name)), ("bucket", .string(bucket)), ("size", .int(size)),
            ("contentType", text(contentType)), ("contentEncoding", text(contentEncoding)),
            ("contentDisposition", text(contentDisposition)), ("contentLanguage", text(contentLanguage)),
            ("cacheControl", text(cacheControl)), ("md5Hash", text(md5Hash)), ("crc32c", text(crc32c)),
            ("etag", text(etag)), ("generation", .int(generation)), ("metageneration", .int(metageneration)),
            ("timeCreated", time(timeCreated)), ("updated", time(updated)),
            ("metadata", metadataValue),
        ]))
    }

    /// `metadata` as a rules map (an empty map unless the JSON is an object).
    var metadataValue: StorageValue {
        let meta = StorageValue(json: metadata)
        return meta.typeName == "map" ? meta : .map(StorageMap())
    }
}

extension StorageValue {
    /// JSON as rules values: integers stay `int`, other numbers are `float`, objects are maps.
    /// Containers nested deeper than `maxValueDepth` read as `null`.
    init(json: JSONValue, depth: Int = 0) {
        if depth >= StorageLimits.maxValueDepth {
            switch json {
            case .array, .object:
                self = .null
                return
            default: break
            }
        }
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map { StorageValue(json: $0, depth: depth + 1) })
        case .object(let members): self = .map(StorageMap(members.map { ($0.key, StorageValue(json: $0.value, depth: depth + 1)) }))
        }
    }
}
