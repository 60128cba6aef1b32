import HearthCore
import HearthStorage
import Logging
import HearthRules
import HearthStore

extension StorageController {
    /// Applies the storage rules to a v0 request: the admin credential skips them; a denial is 403
    /// with Firebase's text.
    func authorize(
        _ caller: Caller, _ method: StorageRulesMethod, bucket: String, name: String, resource: ObjectRecord? = nil,
        existing: ObjectRecord? = nil
    ) throws {
        if case .admin = caller { return }
        let auth = caller.auth
        // A listing of `images/` is asked as the path `images/` with an empty last segment, so
        // `match /images/{imageId} { allow list }` governs it, as in Firebase.
        let path = method == .list ? name.split(separator: "/", omittingEmptySubsequences: false).map(String.init) : nil
        let rulesAuth = auth.flatMap(Self.rulesAuth)
        let request = path.map {
            StorageRulesRequest(method: method, bucket: bucket, path: $0, auth: rulesAuth, time: service.clock())
        } ?? StorageRulesRequest(
            method: method, bucket: bucket, objectName: name, auth: rulesAuth,
            resource: resource.map(Self.rulesResource), existing: existing.map(Self.rulesResource), time: service.clock())
        let decision = rules.current.evaluate(request)
        guard decision.allowed else {
            if configuration.dev {
                logger.info(
                    "storage rules denied a request",
                    metadata: ["hearth.method": "\(method)", "hearth.object": "\(bucket)/\(name)", "hearth.rule": "\(decision.reason)"])
            }
            let verb = switch method {
            case .get: "READ"
            case .list: "LIST"
            case .create, .update, .delete: "WRITE"
            }
            throw StorageError.forbidden("Permission denied. No \(verb) permission.")
        }
    }

    /// `request.auth` from the database rules' `auth` variable (`uid` + `token` claims).
    static func rulesAuth(_ auth: JSONValue) -> StorageRulesAuth? {
        guard let uid = auth["uid"]?.stringValue else { return nil }
        return StorageRulesAuth(uid: uid, token: auth["token"] ?? .object([]))
    }

    static func rulesResource(_ o: ObjectRecord) -> StorageRulesResource {
        var custom = o.metadata
        custom[ObjectRecord.downloadTokensKey] = nil
        return StorageRulesResource(
            bucket: o.bucket, name: o.name, size: o.size, contentType: o.contentType, contentEncoding: o.contentEncoding,
            contentDisposition: o.contentDisposition, contentLanguage: o.contentLanguage, cacheControl: o.cacheControl,
            md5Hash: o.md5Hash, crc32c: o.crc32c, etag: ObjectResource.etag(o), generation: o.generation,
            metageneration: o.metageneration, timeCreated: o.timeCreated, updated: o.updated,
            metadata: ObjectResource.metadataMap(custom))
    }

    /// What an upload will look like, for checking the rules before its bytes arrive.
    func plannedObject(bucket: String, name: String, size: Int64, fields: ObjectFields) throws -> ObjectRecord {
        var record = ObjectRecord(
            bucket: bucket, name: name, generation: 0, blob: "", size: size, md5Hash: "", crc32c: "", timeCreated: service.clock(),
            updated: service.clock())
        try fields.apply(to: &record, keepTokens: true)
        if record.contentType == nil { record.contentType = "application/octet-stream" }
        return record
    }

    /// Uploads are `create` for a new object and `update` for an overwrite (as production does).
    func uploadAuthorizer(_ caller: Caller) -> @Sendable (ObjectRecord?, ObjectRecord) throws -> Void {
        { existing, record in
            try self.authorize(caller, existing == nil ? .create : .update, bucket: record.bucket, name: record.name, resource: record, existing: existing)
        }
    }
}
