import Foundation
import HearthCore
import HearthFiles
import HearthStore

/// The writable fields of an object resource as a client sends them (upload metadata, PATCH,
/// PUT). `nil` = not sent; `.some(nil)` = sent as JSON null (clears the field on PATCH).
struct ObjectFields: Sendable {
    var contentType: String??
    var contentEncoding: String??
    var contentDisposition: String??
    var contentLanguage: String??
    var cacheControl: String??
    var customTime: String??
    /// `nil` = not sent; `.some(nil)` = `"metadata": null` (clear all); inner nil values delete a key.
    var metadata: [String: String?]??
    /// Client-computed checksums to verify against the bytes.
    var md5Hash: String?
    var crc32c: String?
    /// Firebase v0: download tokens (comma-separated), lifted out of `metadata`.
    var downloadTokens: String?

    nonisolated(unsafe) static let stringFields: [(String, WritableKeyPath<ObjectFields, String??>)] = [
        ("contentType", \.contentType), ("contentEncoding", \.contentEncoding), ("contentDisposition", \.contentDisposition),
        ("contentLanguage", \.contentLanguage), ("cacheControl", \.cacheControl), ("customTime", \.customTime),
    ]

    init() {}

    /// Reads a metadata JSON object (camelCase or snake_case keys).
    init(json: JSONValue) throws {
        guard case .object(let members) = json else {
            if json == .null { return }
            throw StorageError.badRequest("Object metadata must be a JSON object")
        }
        for member in members {
            let key = Self.camelCase(member.key)
            if let field = Self.stringFields.first(where: { $0.0 == key }) {
                switch member.value {
                case .null: self[keyPath: field.1] = .some(nil)
                case .string(let s): self[keyPath: field.1] = .some(s)
                default: throw StorageError.badRequest("\(key) must be a string")
                }
                continue
            }
            switch (key, member.value) {
            case ("metadata", .null): metadata = .some(nil)
            case ("metadata", .object(let entries)):
                var map: [String: String?] = [:]
                for e in entries {
                    switch e.value {
                    case .null: map[e.key] = .some(nil)
                    case .string(let s): map[e.key] = s
                    case .int(let i): map[e.key] = String(i)
                    case .double(let d): map[e.key] = String(d)
                    case .bool(let b): map[e.key] = String(b)
                    default: throw StorageError.badRequest("custom metadata values must be strings")
                    }
                }
                metadata = .some(map)
            case ("md5Hash", .string(let s)): md5Hash = s
            case ("crc32c", .string(let s)): crc32c = s
            case ("crc32c", .int(let i)): crc32c = CRC32C.base64(UInt32(truncatingIfNeeded: i))
            case ("downloadTokens", .string(let s)): downloadTokens = s
            default: continue  // name, bucket, size, acl, storageClass, …: not writable or not kept
            }
        }
    }

    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let parts = key.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Applies these fields to `record` (PATCH semantics: sent fields replace, null clears,
    /// metadata merges key by key). `keepTokens`: the Firebase view, where download tokens are
    /// not part of `metadata`, so clearing it keeps them.
    func apply(to record: inout ObjectRecord, keepTokens: Bool) {
        for (_, path) in Self.stringFields {
            guard let value = self[keyPath: path] else { continue }
            switch path {
            case \.contentType: record.contentType = value
            case \.contentEncoding: record.contentEncoding = value
            case \.contentDisposition: record.contentDisposition = value
            case \.contentLanguage: record.contentLanguage = value
            case \.cacheControl: record.cacheControl = value
            default: record.customTime = value
            }
        }
        if let metadata {
            if let entries = metadata {
                for (key, value) in entries {
                    if key == ObjectRecord.downloadTokensKey, let value {
                        record.downloadTokens = Self.union(record.downloadTokens, value)
                    } else {
                        record.metadata[key] = value
                    }
                }
            } else {
                let tokens = record.metadata[ObjectRecord.downloadTokensKey]
                record.metadata = [:]
                if keepTokens { record.metadata[ObjectRecord.downloadTokensKey] = tokens }
            }
        }
        // Writing tokens adds them (removing one is the admin `delete_token` call).
        if let downloadTokens { record.downloadTokens = Self.union(record.downloadTokens, downloadTokens) }
    }

    static func union(_ tokens: [String], _ added: String) -> [String] {
        tokens + added.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !tokens.contains($0) }
    }

    /// The value of a string field as the object resource will show it.
    func string(_ path: WritableKeyPath<ObjectFields, String??>) -> String? { self[keyPath: path] ?? nil }
}

