public import Foundation

/// An object's metadata, as Firebase Storage v0 describes it.
///
/// For uploads and ``StorageReference/updateMetadata(_:)`` only the writable fields count:
/// ``contentType``, ``cacheControl``, ``contentDisposition``, ``contentEncoding``,
/// ``contentLanguage`` and ``customMetadata``; the rest are set by the server.
///
/// ```swift
/// var metadata = StorageMetadata(contentType: "image/jpeg")
/// metadata.customMetadata = ["owner": uid]
/// try await storage.reference("users/\(uid)/avatar.jpg").putData(jpeg, metadata: metadata)
/// ```
public struct StorageMetadata: Sendable, Hashable {
    // Writable
    /// The MIME type (`image/jpeg`), sent back as `Content-Type` on download.
    public var contentType: String?
    /// The `Cache-Control` header a download is served with.
    public var cacheControl: String?
    /// The `Content-Disposition` header a download is served with (`attachment; filename="a.pdf"`).
    public var contentDisposition: String?
    /// The `Content-Encoding` of the stored bytes (`gzip`).
    public var contentEncoding: String?
    /// The `Content-Language` header a download is served with.
    public var contentLanguage: String?
    /// Your own key–value pairs. In ``StorageReference/updateMetadata(_:)`` they are merged into
    /// the existing ones.
    public var customMetadata: [String: String]?

    // Set by the server
    /// The bucket the object is in.
    public internal(set) var bucket: String = ""
    /// The object's full path (its name in the bucket).
    public internal(set) var path: String = ""
    /// The object's size in bytes.
    public internal(set) var size: Int64 = 0
    /// The object's revision: a new number whenever its bytes are written.
    public internal(set) var generation: Int64 = 0
    /// The revision of the metadata within one ``generation``; it goes up with each metadata update.
    public internal(set) var metageneration: Int64 = 0
    /// When this generation of the object was written.
    public internal(set) var timeCreated: Date?
    /// When the object or its metadata last changed.
    public internal(set) var updated: Date?
    /// base64 of the MD5 of the bytes.
    public internal(set) var md5Hash: String?
    /// The tokens that make a download URL work without credentials (see ``StorageReference/downloadURL()``).
    public internal(set) var downloadTokens: [String] = []

    /// The last path segment.
    public var name: String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Metadata for an upload or an update: only the writable fields, each nil to leave it unset.
    public init(
        contentType: String? = nil, cacheControl: String? = nil, contentDisposition: String? = nil, contentEncoding: String? = nil,
        contentLanguage: String? = nil, customMetadata: [String: String]? = nil
    ) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.contentEncoding = contentEncoding
        self.contentLanguage = contentLanguage
        self.customMetadata = customMetadata
    }
}

extension StorageMetadata {
    /// The v0 metadata JSON (int64s as strings, times as RFC 3339).
    struct Wire: Codable, Sendable {
        var name: String?
        var bucket: String?
        var generation: String?
        var metageneration: String?
        var contentType: String?
        var timeCreated: String?
        var updated: String?
        var size: String?
        var md5Hash: String?
        var contentEncoding: String?
        var contentDisposition: String?
        var contentLanguage: String?
        var cacheControl: String?
        var downloadTokens: String?
        var metadata: [String: String]?
    }

    init(wire: Wire) {
        self.init(
            contentType: wire.contentType, cacheControl: wire.cacheControl, contentDisposition: wire.contentDisposition,
            contentEncoding: wire.contentEncoding, contentLanguage: wire.contentLanguage, customMetadata: wire.metadata ?? [:])
        bucket = wire.bucket ?? ""
        path = wire.name ?? ""
        size = wire.size.flatMap { Int64($0) } ?? 0
        generation = wire.generation.flatMap { Int64($0) } ?? 0
        metageneration = wire.metageneration.flatMap { Int64($0) } ?? 0
        timeCreated = wire.timeCreated.flatMap(Self.date)
        updated = wire.updated.flatMap(Self.date)
        md5Hash = wire.md5Hash
        downloadTokens = (wire.downloadTokens ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func decode(_ data: Data, status: Int) throws -> StorageMetadata {
        do {
            return StorageMetadata(wire: try JSONDecoder().decode(Wire.self, from: data))
        } catch {
            throw StorageError.invalidResponse(status: status)
        }
    }

    /// The writable fields as upload or PATCH JSON (nil fields left out).
    func writableJSON(name: String? = nil, md5Hash: String? = nil) throws -> Data {
        var wire = Wire()
        wire.name = name
        wire.contentType = contentType
        wire.cacheControl = cacheControl
        wire.contentDisposition = contentDisposition
        wire.contentEncoding = contentEncoding
        wire.contentLanguage = contentLanguage
        wire.metadata = customMetadata
        wire.md5Hash = md5Hash
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(wire)
    }

    /// RFC 3339 with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
