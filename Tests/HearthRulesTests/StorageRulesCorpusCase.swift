import HearthCore
import HearthRules

/// One corpus case read from JSON: the request to evaluate and the expected outcome.
///
/// ```json
/// {"name": "owner uploads", "method": "create", "path": "users/alice/avatar.jpg",
///  "auth": {"uid": "alice", "token": {"email_verified": true}},
///  "requestResource": {"size": 2048, "contentType": "image/png", "metadata": {"k": "v"}},
///  "resource": null, "time": 1700000000000, "expect": "allow", "line": 7}
/// ```
/// Missing fields come from the group's `defaults`, then from built-in defaults (method `get`,
/// bucket `demo-proj.appspot.com`, path `x`, signed out, time 2023-11-14T22:13:20Z).
struct StorageCorpusCase {
    var request: StorageRulesRequest
    var expectAllowed: Bool
    var why: String?
    var line: Int?

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static let defaultTime: Int64 = 1_700_000_000_000
    static let defaultBucket = "demo-proj.appspot.com"

    init(json: JSONValue, defaults: JSONValue?) throws {
        func field(_ key: String) -> JSONValue? { json[key] ?? defaults?[key] }
        let methodName = field("method")?.stringValue ?? "get"
        guard let method = StorageRulesMethod(rawValue: methodName) else { throw Invalid(description: "unknown method \(methodName)") }
        let bucket = field("bucket")?.stringValue ?? Self.defaultBucket
        let path = field("path")?.stringValue ?? "x"
        var time = Self.defaultTime
        if case .int(let t)? = field("time") { time = t }
        var auth: StorageRulesAuth?
        if let a = field("auth"), a != .null {
            if let claims = a["claims"] {
                auth = StorageRulesAuth(claims: claims)
                if auth == nil { throw Invalid(description: "claims without user_id/sub") }
            } else {
                guard let uid = a["uid"]?.stringValue else { throw Invalid(description: "auth without uid") }
                auth = StorageRulesAuth(uid: uid, token: a["token"] ?? .object([]))
            }
        }
        let incoming = try field("requestResource").flatMap { try Self.resource($0, bucket: bucket, path: path) }
        let existing = try field("resource").flatMap { try Self.resource($0, bucket: bucket, path: path) }
        request = StorageRulesRequest(
            method: method, bucket: bucket, objectName: path, auth: auth, resource: incoming, existing: existing, time: time)
        switch json["expect"]?.stringValue {
        case "allow"?: expectAllowed = true
        case "deny"?: expectAllowed = false
        default: throw Invalid(description: "\"expect\" must be \"allow\" or \"deny\"")
        }
        why = json["why"]?.stringValue
        if case .int(let l)? = json["line"] { line = Int(l) }
    }

    static func resource(_ json: JSONValue, bucket: String, path: String) throws -> StorageRulesResource? {
        if json == .null { return nil }
        guard case .object = json else { throw Invalid(description: "a resource is an object or null") }
        func int(_ key: String, _ fallback: Int64) -> Int64 {
            if case .int(let v)? = json[key] { return v }
            return fallback
        }
        return StorageRulesResource(
            bucket: json["bucket"]?.stringValue ?? bucket, name: json["name"]?.stringValue ?? path, size: int("size", 0),
            contentType: json["contentType"]?.stringValue, contentEncoding: json["contentEncoding"]?.stringValue,
            contentDisposition: json["contentDisposition"]?.stringValue, contentLanguage: json["contentLanguage"]?.stringValue,
            cacheControl: json["cacheControl"]?.stringValue, md5Hash: json["md5Hash"]?.stringValue,
            crc32c: json["crc32c"]?.stringValue, etag: json["etag"]?.stringValue, generation: int("generation", 1),
            metageneration: int("metageneration", 1), timeCreated: int("timeCreated", defaultTime),
            updated: int("updated", defaultTime), metadata: json["metadata"] ?? .object([]))
    }
}
