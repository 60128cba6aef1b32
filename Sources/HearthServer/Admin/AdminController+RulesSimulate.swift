import Foundation
import HearthCore
import HearthDatabase
import HearthRules
import HearthStorage
import HearthStore
import Hummingbird

extension AdminController {
    /// `POST /.hearth/rules/simulate` with `"kind":"database"`: one read or write decided by database rules.
    ///
    /// `{"namespace"?:"demo","source"?:"draft","operation":"read"|"set"|"update","path":"/a/b","auth":{…}|null,
    /// "value"?,"values"?,"query"?,"data"?,"now"?}` → `{"allowed":bool,"reason":"…","rule":{"location":
    /// "/users/$uid/.write","text":"auth.uid === $uid","line":L,"column":C}|null}`.
    ///
    /// - `source`: the rules to ask (a draft); without it, the namespace's published rules. `namespace` defaults to
    ///   the server's default database.
    /// - `auth`: the rules' `auth` variable (`{"uid":"alice","token":{…claims}}`); null or absent is signed out.
    /// - `value` (set; null deletes; server values allowed), `values` (update: relative paths → values), `query`
    ///   (read: REST parameters such as `{"orderBy":"\"$key\"","limitToFirst":"2"}`), as in a `hearth rules test`
    ///   case. `now` is milliseconds since 1970 (default: now).
    /// - `data`: JSON standing for the whole database. Without it the namespace's real data is used, read inside one
    ///   snapshot exactly as the server reads it to decide a real request: only the locations the rules touch
    ///   (`data`, `root`, `newData` lookups, `hasChildren`…, each answered from one stored row or a key-limited
    ///   listing), never a whole subtree, so a simulation against a large database costs what the real request's
    ///   check costs. The one exception is an increment, which reads the number it adds to: when that place holds more
    ///   than 1,000 values the simulation is refused (400) and asks for `data`.
    /// - `rule`: the rule that decided (the rule that granted, the `.validate` that failed, or the deepest false
    ///   `.read`/`.write` when nothing granted), with the 1-based line and column where its value starts in the
    ///   source; null when no rule stood on the way. The simulator writes nothing.
    func simulateDatabase(_ body: JSONValue) async throws -> JSONValue {
        guard let operation = body["operation"]?.stringValue, ["read", "set", "update"].contains(operation) else {
            throw AdminError.badRequest("\"operation\" is read, set or update")
        }
        guard body["path"]?.stringValue != nil else { throw AdminError.badRequest("\"path\" is required, e.g. /users/alice") }
        if let auth = body["auth"], auth != .null, !Self.isObject(auth) { throw AdminError.badRequest("\"auth\" is an object or null (signed out)") }
        var members: [JSONMember] = [
            JSONMember("name", .string("simulation")), JSONMember("op", .string(operation)), JSONMember("expect", .string("allow")),
            JSONMember("now", body["now"] ?? .int(Int64(Date().timeIntervalSince1970 * 1000))),
        ]
        for key in ["path", "auth", "value", "values", "query", "data"] {
            if let value = body[key] { members.append(JSONMember(key, value)) }
        }
        let testCase: RulesTestCase
        do {
            testCase = try RulesTestCase(json: .object(members))
        } catch {
            throw AdminError.badRequest(error.message.replacingOccurrences(of: "Case simulation: ", with: ""))
        }
        let rules = try await databaseRules(body)
        let decision: RuleDecision
        if body["data"] != nil {
            do { decision = try testCase.evaluate(rules) } catch { throw AdminError.badRequest(error.message) }
        } else {
            decision = try await withNamespace(body) { namespace in
                try await namespace.database.store.snapshot { reader in try Self.decide(testCase, rules: rules, reader: reader) }
            }
        }
        var rule = JSONValue.null
        if let deciding = decision.decidingRule {
            let position = rules.position(ofRule: deciding.location)
            rule = .object([
                JSONMember("location", .string(deciding.location)), JSONMember("text", .string(deciding.text)),
                JSONMember("line", position.map { .int(Int64($0.line)) } ?? .null),
                JSONMember("column", position.map { .int(Int64($0.column)) } ?? .null),
            ])
        }
        return .object([JSONMember("allowed", .bool(decision.allowed)), JSONMember("reason", .string(decision.reason)), JSONMember("rule", rule)])
    }

    /// Decides a simulated request against the stored data, read as the server reads it for a real request.
    private static func decide(_ c: RulesTestCase, rules: RuleSet, reader: any StoreReader) throws -> RuleDecision {
        let data = StoreRuleData(reader: reader)
        func resolve(_ parsed: ParsedWrite, at target: Path) throws -> Node {
            do {
                return try parsed.resolved(now: c.now) { relative in
                    guard let node = try reader.read(target.appending(relative), rowLimit: 1000) else {
                        throw AdminError.badRequest("The increment adds to more than 1000 stored values; pass \"data\" to simulate it")
                    }
                    return node
                }
            } catch let error as ValidationError {
                throw AdminError.badRequest(error.message)
            }
        }
        switch c.operation {
        case .read(let query):
            return rules.canRead(c.path, auth: c.auth, query: query, now: c.now, data: data)
        case .set(let parsed):
            return rules.canWrite([(c.path, try resolve(parsed, at: c.path))], auth: c.auth, now: c.now, data: data)
        case .update(let entries):
            let writes = try entries.map { entry in
                let target = c.path.appending(entry.path)
                return (path: target, node: try resolve(entry.value, at: target))
            }
            return rules.canWrite(writes, auth: c.auth, now: c.now, data: data)
        }
    }

    /// Runs `body` with the namespace `namespace` names (default: the server's default database) held.
    func withNamespace<R: Sendable>(_ request: JSONValue, _ body: (Namespace) async throws -> R) async throws -> R {
        let name: String
        switch request["namespace"] {
        case nil, .null?: name = configuration.defaultNamespace
        case .string(let s)? where !s.isEmpty: name = s
        default: throw AdminError.badRequest("\"namespace\" is a database name")
        }
        let lease: NamespaceLease
        do {
            lease = try await database.lease(name)
        } catch {
            throw AdminError(error.status, error.message)
        }
        defer { database.registry.release(lease) }
        return try await body(lease.namespace)
    }

    /// `POST /.hearth/rules/simulate` with `"kind":"storage"`: one Cloud Storage request decided by storage rules.
    ///
    /// `{"operation":"get"|"list"|"create"|"update"|"delete"|"read"|"write","bucket"?,"path":"users/alice/a.jpg",
    /// "auth":{"uid":"alice","token":{…claims}}|null,"resource"?:{"size","contentType","metadata",…},"existing"?:{…},
    /// "source"?,"now"?}` → `{"allowed":bool,"reason":"…","line":L|null,"operation":"create"}`.
    ///
    /// - `source`: a draft; without it, the rules in force (404 on a server without storage).
    /// - `bucket` defaults to the default bucket (`<project>.appspot.com`); `path` is the object name (a leading `/`
    ///   is dropped; for `list`, the folder).
    /// - `read` means `get`; `write` means `update` when the object exists, else `create` (`operation` in the answer
    ///   says which was asked).
    /// - `resource`: `request.resource` for create and update (`size` defaults to 0; `contentType`,
    ///   `contentEncoding`, `contentDisposition`, `contentLanguage`, `cacheControl`, `md5Hash`, `crc32c`, `metadata`).
    ///   `existing`: `resource`, the object as stored; without it, the stored object at `path` when there is one.
    /// - `line`: the 1-based line of the `allow` that granted, or of the last one tried when denied; null when none
    ///   applied. Nothing is written.
    func simulateStorage(_ body: JSONValue) async throws -> JSONValue {
        guard let asked = body["operation"]?.stringValue, ["get", "list", "create", "update", "delete", "read", "write"].contains(asked) else {
            throw AdminError.badRequest("\"operation\" is get, list, create, update, delete, read or write")
        }
        guard var name = body["path"]?.stringValue else { throw AdminError.badRequest("\"path\" (the object name) is required") }
        if name.hasPrefix("/") { name.removeFirst() }
        let rules: StorageRules
        if let source = body["source"], source != .null {
            guard let text = source.stringValue else { throw AdminError.badRequest("\"source\" is the rules text") }
            do {
                rules = try StorageRules(source: text)
            } catch {
                throw AdminError.badRequest("The rules have an error at line \(error.line), column \(error.column): \(error.message)")
            }
        } else {
            guard let storage else { throw AdminError(.notFound, "This server runs no storage; pass the rules as \"source\".") }
            rules = storage.access.rules.current
        }
        let bucket = body["bucket"]?.stringValue ?? storage?.service.defaultBucket ?? "\(configuration.defaultNamespace).appspot.com"
        let auth: StorageRulesAuth?
        switch body["auth"] {
        case nil, .null?: auth = nil
        case let value? where Self.isObject(value):
            guard let uid = value["uid"]?.stringValue, !uid.isEmpty else { throw AdminError.badRequest("\"auth\" needs a \"uid\" (or null for signed out)") }
            auth = StorageRulesAuth(uid: uid, token: value["token"] ?? .object([]))
        default: throw AdminError.badRequest("\"auth\" is an object or null (signed out)")
        }
        var existing = try body["existing"].flatMap { try Self.resource($0, bucket: bucket, name: name, field: "existing") }
        if body["existing"] == nil, asked != "list", let storage, !name.isEmpty {
            existing = try await storage.service.object(bucket: bucket, name: name).map(Self.resource)
        }
        let method: StorageRulesMethod
        switch asked {
        case "read": method = .get
        case "write": method = existing == nil ? .create : .update
        default: method = StorageRulesMethod(rawValue: asked)!
        }
        var resource: StorageRulesResource?
        if method == .create || method == .update {
            resource = try Self.resource(body["resource"] ?? .object([]), bucket: bucket, name: name, field: "resource")
        }
        let time: Int64
        switch body["now"] {
        case nil, .null?: time = Int64(Date().timeIntervalSince1970 * 1000)
        case .int(let n)?: time = n
        default: throw AdminError.badRequest("\"now\" is an integer (milliseconds since 1970)")
        }
        let decision = rules.evaluate(StorageRulesRequest(
            method: method, bucket: bucket, objectName: name, auth: auth, resource: resource,
            existing: method == .list ? nil : existing, time: time))
        return .object([
            JSONMember("allowed", .bool(decision.allowed)), JSONMember("reason", .string(decision.reason)),
            JSONMember("line", decision.line.map { .int(Int64($0)) } ?? .null), JSONMember("operation", .string(method.rawValue)),
        ])
    }

    /// Whether `value` is a JSON object.
    private static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    /// An object as rules see it, from the simulator's JSON (nil for null).
    private static func resource(_ json: JSONValue, bucket: String, name: String, field: String) throws -> StorageRulesResource? {
        if json == .null { return nil }
        guard isObject(json) else { throw AdminError.badRequest("\"\(field)\" is an object such as {\"size\": 1024, \"contentType\": \"image/png\"}") }
        var size: Int64 = 0
        switch json["size"] {
        case nil, .null?: break
        case .int(let n)? where n >= 0: size = n
        default: throw AdminError.badRequest("\"\(field).size\" is a whole number of bytes")
        }
        func text(_ key: String) throws -> String? {
            switch json[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw AdminError.badRequest("\"\(field).\(key)\" is a string")
            }
        }
        let metadata = json["metadata"] ?? .object([])
        guard isObject(metadata) else { throw AdminError.badRequest("\"\(field).metadata\" is an object") }
        return StorageRulesResource(
            bucket: bucket, name: name, size: size, contentType: try text("contentType"), contentEncoding: try text("contentEncoding"),
            contentDisposition: try text("contentDisposition"), contentLanguage: try text("contentLanguage"),
            cacheControl: try text("cacheControl"), md5Hash: try text("md5Hash"), crc32c: try text("crc32c"), metadata: metadata)
    }

    /// A stored object as rules see it (custom metadata without the download tokens).
    private static func resource(_ o: ObjectRecord) -> StorageRulesResource {
        var custom = o.metadata
        custom[ObjectRecord.downloadTokensKey] = nil
        return StorageRulesResource(
            bucket: o.bucket, name: o.name, size: o.size, contentType: o.contentType, contentEncoding: o.contentEncoding,
            contentDisposition: o.contentDisposition, contentLanguage: o.contentLanguage, cacheControl: o.cacheControl,
            md5Hash: o.md5Hash, crc32c: o.crc32c, generation: o.generation, metageneration: o.metageneration,
            timeCreated: o.timeCreated, updated: o.updated,
            metadata: .object(custom.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) }))
    }
}
