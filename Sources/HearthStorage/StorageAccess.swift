import HearthCore
import HearthRules
import HearthStore

/// The storage rules applied to one caller's requests: whether a read, listing, upload or delete
/// of an object is allowed, what an upload will look like to the rules before its bytes arrive,
/// and how large an upload the rules could ever accept. Both storage APIs check through it; the
/// admin credential skips the rules.
package struct StorageAccess: Sendable {
    /// The service whose objects are checked (the existing object, the clock).
    package let service: StorageService
    /// The rules in force.
    package let rules: StorageRulesHolder
    /// Told of each denial with the deciding reason (the server logs it in `--dev`).
    package let denied: @Sendable (_ method: StorageRulesMethod, _ bucket: String, _ name: String, _ reason: String) -> Void

    /// Checks under `rules`, reporting denials to `denied`.
    package init(
        service: StorageService, rules: StorageRulesHolder,
        denied: @escaping @Sendable (_ method: StorageRulesMethod, _ bucket: String, _ name: String, _ reason: String) -> Void = { _, _, _, _ in }
    ) {
        self.service = service
        self.rules = rules
        self.denied = denied
    }

    /// Applies the rules to one operation on `bucket/name`: `resource` is the object as it would be
    /// after a write, `existing` the stored one. Throws `forbidden` with Firebase's text.
    package func authorize(
        _ caller: Caller, _ method: StorageRulesMethod, bucket: String, name: String, resource: ObjectRecord? = nil,
        existing: ObjectRecord? = nil
    ) throws {
        if case .admin = caller { return }
        // A listing of `images/` is asked as the path `images/` with an empty last segment, so
        // `match /images/{imageId} { allow list }` governs it, as in Firebase.
        let path = method == .list ? name.split(separator: "/", omittingEmptySubsequences: false).map(String.init) : nil
        let rulesAuth = caller.auth.flatMap(Self.rulesAuth)
        let request = path.map {
            StorageRulesRequest(method: method, bucket: bucket, path: $0, auth: rulesAuth, time: service.clock())
        } ?? StorageRulesRequest(
            method: method, bucket: bucket, objectName: name, auth: rulesAuth,
            resource: resource.map(Self.rulesResource), existing: existing.map(Self.rulesResource), time: service.clock())
        let decision = rules.current.evaluate(request)
        guard decision.allowed else {
            denied(method, bucket, name, "\(decision.reason)")
            RuleDenials.count(.storage, method == .get || method == .list ? .read : .write)
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

    /// `resource` as the rules see an object: its fields, custom metadata without the download tokens.
    static func rulesResource(_ o: ObjectRecord) -> StorageRulesResource {
        var custom = o.metadata
        custom[ObjectRecord.downloadTokensKey] = nil
        return StorageRulesResource(
            bucket: o.bucket, name: o.name, size: o.size, contentType: o.contentType, contentEncoding: o.contentEncoding,
            contentDisposition: o.contentDisposition, contentLanguage: o.contentLanguage, cacheControl: o.cacheControl,
            md5Hash: o.md5Hash, crc32c: o.crc32c, etag: o.etag, generation: o.generation,
            metageneration: o.metageneration, timeCreated: o.timeCreated, updated: o.updated,
            metadata: ObjectRecord.metadataJSON(custom))
    }

    /// What an upload will look like, for checking the rules before its bytes arrive.
    package func plannedObject(bucket: String, name: String, size: Int64, fields: ObjectFields) throws -> ObjectRecord {
        var record = ObjectRecord(
            bucket: bucket, name: name, generation: 0, blob: "", size: size, md5Hash: "", crc32c: "", timeCreated: service.clock(),
            updated: service.clock())
        try fields.apply(to: &record, keepTokens: true)
        if record.contentType == nil { record.contentType = "application/octet-stream" }
        return record
    }

    /// The check `StorageService.store` runs when it commits an upload: `create` for a new object and
    /// `update` for an overwrite (as production does).
    package func uploadAuthorizer(_ caller: Caller) -> @Sendable (ObjectRecord?, ObjectRecord) throws -> Void {
        { existing, record in
            try self.authorize(caller, existing == nil ? .create : .update, bucket: record.bucket, name: record.name, resource: record, existing: existing)
        }
    }

    /// Refuses an upload the rules would refuse before reading its bytes. With the size declared,
    /// the rules see it; without, the upload is refused only if neither an empty nor a maximal
    /// object would pass (so a signed-out writer is stopped at once, a size rule waits for the bytes).
    package func precheck(_ caller: Caller, bucket: String, name: String, size: Int64?, fields: ObjectFields) async throws {
        if case .admin = caller { return }
        try StorageService.checkName(name)
        let existing = try await service.object(bucket: bucket, name: name)
        func check(_ size: Int64) throws {
            try authorize(
                caller, existing == nil ? .create : .update, bucket: bucket, name: name,
                resource: plannedObject(bucket: bucket, name: name, size: size, fields: fields), existing: existing)
        }
        if let size { return try check(size) }
        do {
            try check(0)
        } catch {
            try check(StorageService.maxObjectBytes)
        }
    }

    /// The most bytes the rules could let `caller` store at `name`, and what to answer past them
    /// (the rules' denial; nil when the limit is the largest object). The bound is read from the
    /// rules' size conditions (``StorageRules/uploadSizeBound(bucket:objectName:)``), so an upload
    /// without a declared length stops at the first byte no rule could accept instead of filling
    /// the disk up to the largest object first.
    package func uploadLimit(_ caller: Caller, bucket: String, name: String) -> (bytes: Int64, refusal: StorageError?) {
        guard caller != .admin, let bound = rules.current.uploadSizeBound(bucket: bucket, objectName: name), bound < StorageService.maxObjectBytes
        else { return (StorageService.maxObjectBytes, nil) }
        return (max(bound, 0), StorageError.forbidden("Permission denied. No WRITE permission."))
    }
}
