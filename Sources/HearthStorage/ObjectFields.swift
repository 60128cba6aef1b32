import Foundation
import HearthCore
import HearthFiles
import HearthStore

/// The writable fields of an object resource as a client sends them (upload metadata, PATCH,
/// PUT). `nil` = not sent; `.some(nil)` = sent as JSON null (clears the field on PATCH).
package struct ObjectFields: Sendable {
    package var contentType: String??
    package var contentEncoding: String??
    package var contentDisposition: String??
    package var contentLanguage: String??
    package var cacheControl: String??
    package var customTime: String??
    /// `nil` = not sent; `.some(nil)` = `"metadata": null` (clear all); inner nil values delete a key.
    package var metadata: [String: String?]??
    /// Client-computed checksums to verify against the bytes.
    package var md5Hash: String?
    package var crc32c: String?
    /// Firebase v0: download tokens (comma-separated), lifted out of `metadata`.
    package var downloadTokens: String?

    nonisolated(unsafe) package static let stringFields: [(String, WritableKeyPath<ObjectFields, String??>)] = [
        ("contentType", \.contentType), ("contentEncoding", \.contentEncoding), ("contentDisposition", \.contentDisposition),
        ("contentLanguage", \.contentLanguage), ("cacheControl", \.cacheControl), ("customTime", \.customTime),
    ]

    package init() {}

    /// Reads a metadata JSON object (camelCase or snake_case keys).
    package init(json: JSONValue) throws {
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

    package static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let parts = key.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Applies these fields to `record` (PATCH semantics: sent fields replace, null clears,
    /// metadata merges key by key). `keepTokens`: the Firebase view, where download tokens are
    /// not part of `metadata`, so clearing it keeps them.
    /// Refused (nothing changed) when it would leave more than `ObjectRecord.maxDownloadTokens` tokens.
    package func apply(to record: inout ObjectRecord, keepTokens: Bool) throws {
        var result = record
        for (_, path) in Self.stringFields {
            guard let value = self[keyPath: path] else { continue }
            switch path {
            case \.contentType: result.contentType = value
            case \.contentEncoding: result.contentEncoding = value
            case \.contentDisposition: result.contentDisposition = value
            case \.contentLanguage: result.contentLanguage = value
            case \.cacheControl: result.cacheControl = value
            default: result.customTime = value
            }
        }
        if let metadata {
            if let entries = metadata {
                for (key, value) in entries {
                    if key == ObjectRecord.downloadTokensKey, let value {
                        result.downloadTokens = try Self.union(result.downloadTokens, value)
                    } else {
                        result.metadata[key] = value
                    }
                }
            } else {
                let tokens = result.metadata[ObjectRecord.downloadTokensKey]
                result.metadata = [:]
                if keepTokens { result.metadata[ObjectRecord.downloadTokensKey] = tokens }
            }
        }
        // Writing tokens adds them (removing one is the admin `delete_token` call).
        if let downloadTokens { result.downloadTokens = try Self.union(result.downloadTokens, downloadTokens) }
        record = result
    }

    /// `tokens` plus the comma-separated `added` ones not already there, in order. Linear (a set, not a
    /// scan of the list per token), and refused when new tokens would take the list past the cap.
    package static func union(_ tokens: [String], _ added: String) throws -> [String] {
        var seen = Set(tokens)
        var out = tokens
        for part in added.split(separator: ",") {
            let token = part.trimmingCharacters(in: .whitespaces)
            if !token.isEmpty, seen.insert(token).inserted { out.append(token) }
        }
        if out.count > tokens.count { try checkTokenCount(out.count) }
        return out
    }

    /// A clear 400 when an object would keep more than `ObjectRecord.maxDownloadTokens` download tokens.
    package static func checkTokenCount(_ count: Int) throws {
        guard count > ObjectRecord.maxDownloadTokens else { return }
        throw StorageError.badRequest(
            "An object keeps at most \(ObjectRecord.maxDownloadTokens) download tokens; delete some (delete_token) before adding more")
    }

    /// The value of a string field as the object resource will show it.
    package func string(_ path: WritableKeyPath<ObjectFields, String??>) -> String? { self[keyPath: path] ?? nil }
}

