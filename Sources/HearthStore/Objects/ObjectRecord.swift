/// One stored file's metadata (Cloud Storage's object resource): where its bytes are (`blob`)
/// and everything both storage APIs report about it. Timestamps are milliseconds since 1970.
public struct ObjectRecord: Codable, Sendable, Equatable {
    public var bucket: String
    public var name: String
    /// Changes whenever the bytes are replaced (milliseconds of the write, made unique per name).
    public var generation: Int64
    /// Starts at 1 and grows with every metadata change.
    public var metageneration: Int64
    /// The blob id in the blob store.
    public var blob: String
    public var size: Int64
    /// base64 MD5 of the bytes.
    public var md5Hash: String
    /// base64 of the big-endian CRC-32C of the bytes.
    public var crc32c: String
    public var contentType: String?
    public var contentEncoding: String?
    public var contentDisposition: String?
    public var contentLanguage: String?
    public var cacheControl: String?
    public var customTime: String?
    /// Custom metadata, including `firebaseStorageDownloadTokens`.
    public var metadata: [String: String]
    public var timeCreated: Int64
    public var updated: Int64

    public init(
        bucket: String, name: String, generation: Int64, metageneration: Int64 = 1, blob: String, size: Int64, md5Hash: String,
        crc32c: String, contentType: String? = nil, metadata: [String: String] = [:], timeCreated: Int64, updated: Int64
    ) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
        self.metageneration = metageneration
        self.blob = blob
        self.size = size
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.contentType = contentType
        self.metadata = metadata
        self.timeCreated = timeCreated
        self.updated = updated
    }

    /// The metadata key that holds Firebase download tokens (comma-separated UUIDs).
    public static let downloadTokensKey = "firebaseStorageDownloadTokens"

    /// The most download tokens one object keeps. Each write that adds tokens is checked, so the list (read
    /// on every download by token) stays short; Cloud Storage's 8 KiB limit on custom metadata allows about
    /// 200 UUIDs, and an app rotating tokens deletes old ones (`delete_token`) as it goes.
    public static let maxDownloadTokens = 100

    public var downloadTokens: [String] {
        get { (metadata[Self.downloadTokensKey] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty } }
        set { metadata[Self.downloadTokensKey] = newValue.isEmpty ? nil : newValue.joined(separator: ",") }
    }
}

/// A bucket (Cloud Storage's bucket resource, the parts Hearth keeps).
public struct BucketRecord: Codable, Sendable, Equatable {
    public var name: String
    public var timeCreated: Int64
    public var updated: Int64
    public var metageneration: Int64

    public init(name: String, timeCreated: Int64, updated: Int64? = nil, metageneration: Int64 = 1) {
        self.name = name
        self.timeCreated = timeCreated
        self.updated = updated ?? timeCreated
        self.metageneration = metageneration
    }
}
