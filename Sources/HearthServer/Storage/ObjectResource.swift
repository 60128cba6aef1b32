import HearthCore
import HearthStorage
import HearthStore
import HearthWire

/// The JSON views of an object: Firebase Storage v0 (what client SDKs read) and the Cloud
/// Storage JSON API's `storage#object` (what google-cloud-storage reads). int64s are strings.
enum ObjectResource {
    static func timestamp(_ millis: Int64) -> String { rfc3339(milliseconds: millis) }

    static func optionalFields(_ o: ObjectRecord) -> [JSONMember] {
        var m: [JSONMember] = []
        if let v = o.contentDisposition { m.append(JSONMember("contentDisposition", .string(v))) }
        if let v = o.contentLanguage { m.append(JSONMember("contentLanguage", .string(v))) }
        if let v = o.cacheControl { m.append(JSONMember("cacheControl", .string(v))) }
        if let v = o.customTime { m.append(JSONMember("customTime", .string(v))) }
        return m
    }

    /// Firebase v0: tokens lifted out of `metadata` into `downloadTokens`.
    static func firebase(_ o: ObjectRecord) -> JSONValue {
        var m = [
            JSONMember("name", .string(o.name)), JSONMember("bucket", .string(o.bucket)),
            JSONMember("generation", .string(String(o.generation))), JSONMember("metageneration", .string(String(o.metageneration))),
            JSONMember("contentType", .string(o.contentType ?? "application/octet-stream")),
            JSONMember("timeCreated", .string(timestamp(o.timeCreated))), JSONMember("updated", .string(timestamp(o.updated))),
            JSONMember("storageClass", .string("STANDARD")), JSONMember("size", .string(String(o.size))),
            JSONMember("md5Hash", .string(o.md5Hash)), JSONMember("contentEncoding", .string(o.contentEncoding ?? "identity")),
        ]
        m += optionalFields(o)
        m.append(JSONMember("crc32c", .string(o.crc32c)))
        m.append(JSONMember("etag", .string(o.etag)))
        m.append(JSONMember("downloadTokens", .string(o.downloadTokens.joined(separator: ","))))
        var custom = o.metadata
        custom[ObjectRecord.downloadTokensKey] = nil
        m.append(JSONMember("metadata", ObjectRecord.metadataJSON(custom)))
        return .object(m)
    }

    /// Cloud Storage JSON API `storage#object`; links are absolute on `base` (the address the client used).
    static func cloud(_ o: ObjectRecord, base: String) -> JSONValue {
        let encoded = StoragePath.encodeSegment(o.name)
        let bucket = StoragePath.encodeSegment(o.bucket)
        var m = [
            JSONMember("kind", .string("storage#object")), JSONMember("id", .string("\(o.bucket)/\(o.name)/\(o.generation)")),
            JSONMember("selfLink", .string("\(base)/storage/v1/b/\(bucket)/o/\(encoded)")),
            JSONMember("mediaLink", .string("\(base)/download/storage/v1/b/\(bucket)/o/\(encoded)?generation=\(o.generation)&alt=media")),
            JSONMember("name", .string(o.name)), JSONMember("bucket", .string(o.bucket)),
            JSONMember("generation", .string(String(o.generation))), JSONMember("metageneration", .string(String(o.metageneration))),
            JSONMember("contentType", .string(o.contentType ?? "application/octet-stream")), JSONMember("storageClass", .string("STANDARD")),
            JSONMember("size", .string(String(o.size))), JSONMember("md5Hash", .string(o.md5Hash)), JSONMember("crc32c", .string(o.crc32c)),
            JSONMember("etag", .string(o.etag)), JSONMember("timeCreated", .string(timestamp(o.timeCreated))),
            JSONMember("updated", .string(timestamp(o.updated))), JSONMember("timeStorageClassUpdated", .string(timestamp(o.timeCreated))),
        ]
        if let v = o.contentEncoding { m.append(JSONMember("contentEncoding", .string(v))) }
        m += optionalFields(o)
        if !o.metadata.isEmpty { m.append(JSONMember("metadata", ObjectRecord.metadataJSON(o.metadata))) }
        return .object(m)
    }

    static func bucket(_ b: BucketRecord, base: String) -> JSONValue {
        .object([
            JSONMember("kind", .string("storage#bucket")), JSONMember("id", .string(b.name)),
            JSONMember("selfLink", .string("\(base)/storage/v1/b/\(StoragePath.encodeSegment(b.name))")),
            JSONMember("projectNumber", .string("0")), JSONMember("name", .string(b.name)),
            JSONMember("timeCreated", .string(timestamp(b.timeCreated))), JSONMember("updated", .string(timestamp(b.updated))),
            JSONMember("metageneration", .string(String(b.metageneration))), JSONMember("location", .string("US")),
            JSONMember("locationType", .string("multi-region")), JSONMember("storageClass", .string("STANDARD")),
            JSONMember("etag", .string("\"\(b.metageneration)\"")),
        ])
    }
}

/// Object names in URLs: one percent-encoded path segment.
enum StoragePath {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func encodeSegment(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
