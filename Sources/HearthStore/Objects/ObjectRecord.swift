/// One stored file's metadata (Cloud Storage's object resource): where its bytes are (`blob`)
/// and everything both storage APIs report about it. Timestamps are milliseconds since 1970.
public struct ObjectRecord: Codable, Sendable, Equatable {
    /// The bucket holding the object.
    public var bucket: String
    /// The object name, any string Cloud Storage accepts (`photos/a.jpg`); never used as a file name.
    public var name: String
    /// Changes whenever the bytes are replaced (milliseconds of the write, made unique per name).
    public var generation: Int64
    /// Starts at 1 and grows with every metadata change.
    public var metageneration: Int64
    /// The blob id in the blob store.
    public var blob: String
    /// Length of the bytes.
    public var size: Int64
    /// base64 MD5 of the bytes.
    public var md5Hash: String
    /// base64 of the big-endian CRC-32C of the bytes.
    public var crc32c: String
    /// MIME type given at upload or later; nil when none was given.
    public var contentType: String?
    /// `Content-Encoding` served with the bytes (`gzip`).
    public var contentEncoding: String?
    /// `Content-Disposition` served with the bytes.
    public var contentDisposition: String?
    /// `Content-Language` served with the bytes.
    public var contentLanguage: String?
    /// `Cache-Control` served with the bytes.
    public var cacheControl: String?
    /// Cloud Storage's user-settable `customTime` (an RFC 3339 timestamp), kept as sent.
    public var customTime: String?
    /// Custom metadata, including `firebaseStorageDownloadTokens`.
    public var metadata: [String: String]
    /// When this generation (the current bytes) was written.
    public var timeCreated: Int64
    /// When the bytes or metadata last changed.
    public var updated: Int64

    /// A record with no content headers set; `metageneration` starts at 1.
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

    /// The download tokens in ``metadata`` under ``downloadTokensKey``; setting an empty list removes the key.
    public var downloadTokens: [String] {
        get { (metadata[Self.downloadTokensKey] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty } }
        set { metadata[Self.downloadTokensKey] = newValue.isEmpty ? nil : newValue.joined(separator: ",") }
    }
}

/// A bucket (Cloud Storage's bucket resource, the parts Hearth keeps).
public struct BucketRecord: Codable, Sendable, Equatable {
    /// The bucket name.
    public var name: String
    /// Creation time, milliseconds since 1970.
    public var timeCreated: Int64
    /// Last metadata change, milliseconds since 1970.
    public var updated: Int64
    /// Starts at 1 and grows with every metadata change.
    public var metageneration: Int64

    /// A bucket record; `updated` defaults to `timeCreated`.
    public init(name: String, timeCreated: Int64, updated: Int64? = nil, metageneration: Int64 = 1) {
        self.name = name
        self.timeCreated = timeCreated
        self.updated = updated ?? timeCreated
        self.metageneration = metageneration
    }
}
