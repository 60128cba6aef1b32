/// Public: `HTTPResponse.Status` is in this file's public API.
public import HTTPTypes
/// Public: `JSONValue` and `Query` are in this file's public API.
public import HearthCore
import HearthDatabase
import HearthStore
import HearthWire

/// The database as one user sees it, for functions: every read and write is checked by the namespace's
/// security rules with that user's `auth`, exactly as the same request from that user's client would be
/// (Firebase Admin SDK's `databaseAuthVariableOverride`). Get one from ``AdminDatabase/as(_:)`` or
/// ``AdminDatabase/as(uid:claims:)``.
///
/// An HTTP or callable function that serves a client's request should go through it, so that the function
/// cannot do for the client what the rules forbid the client:
///
/// ```swift
/// try functions.callable("addItem") { (item: JSONValue, request, context) -> String in
///     let db = context.database.as(request.auth)        // nil auth: signed out
///     do {
///         return try await db.push("/items/\(request.auth?.uid ?? "-")", item)
///     } catch let denied as PermissionDeniedError {
///         throw denied.callableError                    // PERMISSION_DENIED to the caller
///     }
/// }
/// ```
///
/// Writes run `.write` and `.validate` rules (with `now` and server values resolved as the writer commits
/// them), reads run `.read` rules. A refusal throws ``PermissionDeniedError`` and, for a write, writes
/// nothing: a multi-path update with one forbidden location writes none of them.
public struct UserDatabase: Sendable {
    let service: DatabaseService
    let defaultNamespace: String
    let triggerDepth: Int
    /// The rules' `auth` variable this database acts with: `{uid, provider, token: {claims…}}`, as the
    /// server builds it from a client's verified ID token; nil for a signed-out user.
    public let auth: JSONValue?

    init(admin: AdminDatabase, auth: JSONValue?) {
        service = admin.service
        defaultNamespace = admin.defaultNamespace
        triggerDepth = admin.triggerDepth
        self.auth = auth
    }

    private var access: Access { .user(auth) }

    // MARK: Reads

    /// The value at `path` (`.null` when absent), if the rules let this user read it.
    /// - Throws: ``PermissionDeniedError`` when `.read` rules deny it.
    public func get(_ path: String, namespace: String? = nil) async throws -> JSONValue {
        try await read(path, query: nil, namespace: namespace)
    }

    /// The value at `path` decoded; nil when absent.
    /// - Throws: ``PermissionDeniedError`` when `.read` rules deny it.
    public func get<T: Decodable>(_ path: String, as type: T.Type, namespace: String? = nil) async throws -> T? {
        let value = try await get(path, namespace: namespace)
        if value == .null { return nil }
        return try FunctionCoding.decode(type, from: value)
    }

    /// The children of `path` that `query` selects (ordered, bounded, limited), as the REST API answers
    /// `?orderBy=…&limitToFirst=…`. The rules see it as `query` (`query.orderByChild`, `query.limitToFirst`…),
    /// and an ordering by a child or value needs its `.indexOn`, as for clients.
    /// - Throws: ``PermissionDeniedError`` when `.read` rules deny it.
    public func get(_ path: String, query: Query, namespace: String? = nil) async throws -> JSONValue {
        try await read(path, query: query, namespace: namespace)
    }

    private func read(_ path: String, query: Query?, namespace: String?) async throws -> JSONValue {
        let p = try service.path(path)
        let (node, _) = try await checked(p, namespace) { ns in
            if let query { try await service.checkIndexUnderNewestRules(query, in: ns, at: p) }
            return try await service.checkedRead(p, in: ns, access: access, query: query, rulesQuery: query)
        }
        return try JSONValue.parse(node.jsonBytes())
    }

    // MARK: Writes

    /// Replaces the value at `path` (server values such as `{".sv": "timestamp"}` allowed), if the rules
    /// let this user write it; `.null` removes it.
    /// - Parameter idempotencyKey: as for ``AdminDatabase``: a repeat writes nothing and returns false.
    /// - Throws: ``PermissionDeniedError`` when `.write` or `.validate` rules deny it (nothing is written).
    @discardableResult
    public func set(_ path: String, _ value: JSONValue, namespace: String? = nil, idempotencyKey: String? = nil) async throws -> Bool {
        let p = try service.path(path)
        let parsed = try service.parseWrite(value, at: p)
        return try await write(WriteRequest(path: p, operation: .set(parsed), idempotencyKey: idempotencyKey), namespace)
    }

    /// Replaces the value at `path` with an encoded `Codable` value (dates as milliseconds since 1970).
    /// - Throws: ``PermissionDeniedError`` when the rules deny it (nothing is written).
    @discardableResult
    public func set(_ path: String, _ value: some Encodable & Sendable, namespace: String? = nil, idempotencyKey: String? = nil) async throws
        -> Bool
    {
        try await set(path, try FunctionCoding.encode(value), namespace: namespace, idempotencyKey: idempotencyKey)
    }

    /// A multi-path update relative to `path`, all or nothing: `["items/u1/name": …, "log/u1/x": …]`. The
    /// rules check every location together, as for a client's `update()`; if one is denied, none is written.
    /// - Throws: ``PermissionDeniedError`` (carrying `path`) when the rules deny any of it.
    @discardableResult
    public func update(_ path: String, _ values: [String: JSONValue], namespace: String? = nil, idempotencyKey: String? = nil) async throws
        -> Bool
    {
        let p = try service.path(path)
        let members = values.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value) }
        let operation = try service.updateOperation(members, at: p)
        return try await write(WriteRequest(path: p, operation: operation, idempotencyKey: idempotencyKey), namespace)
    }

    /// Removes the value at `path`, if the rules let this user write it.
    /// - Throws: ``PermissionDeniedError`` when the rules deny it.
    @discardableResult
    public func remove(_ path: String, namespace: String? = nil, idempotencyKey: String? = nil) async throws -> Bool {
        try await set(path, .null, namespace: namespace, idempotencyKey: idempotencyKey)
    }

    /// Adds `value` under a new push id below `path`, if the rules let this user write the new child;
    /// returns its key.
    /// - Throws: ``PermissionDeniedError`` (carrying `path`) when the rules deny it.
    public func push(_ path: String, _ value: JSONValue, namespace: String? = nil) async throws -> String {
        let p = try service.path(path)
        let parsed = try service.parseWrite(value, depth: p.count + 1)
        let outcome = try await commit(WriteRequest(path: p, operation: .push(parsed)), namespace)
        guard case .committed(.pushed(let key), _) = outcome else { throw FunctionsError("The push did not commit") }
        return key.string
    }

    /// Adds an encoded `Codable` value under a new push id below `path`; returns its key.
    /// - Throws: ``PermissionDeniedError`` when the rules deny it.
    public func push(_ path: String, _ value: some Encodable & Sendable, namespace: String? = nil) async throws -> String {
        try await push(path, try FunctionCoding.encode(value), namespace: namespace)
    }

    private func write(_ request: WriteRequest, _ namespace: String?) async throws -> Bool {
        do {
            _ = try await commit(request, namespace)
            return true
        } catch is AlreadyApplied {
            return false
        }
    }

    private func commit(_ request: WriteRequest, _ namespace: String?) async throws -> WriteOutcome {
        var request = request
        request.triggerDepth = triggerDepth
        let stamped = request
        return try await checked(request.path, namespace) { ns in
            try await service.commit(stamped, namespace: ns, access: access)
        }
    }

    /// Runs `body` with the namespace held, turning a rules refusal into ``PermissionDeniedError`` at `path`.
    private func checked<R: Sendable>(_ path: Path, _ namespace: String?, _ body: (Namespace) async throws -> R) async throws -> R {
        let name = namespace ?? defaultNamespace
        guard NamespaceRegistry.isValid(name) else { throw FunctionsError("Invalid namespace \"\(name)\"") }
        do {
            return try await service.withNamespace(name, body)
        } catch DatabaseError.namespace(let error) where error.code == .notFound {
            throw FunctionsError("There is no database \"\(name)\"")
        } catch DatabaseError.permissionDenied(let reason) {
            throw PermissionDeniedError(path: path.description, reason: reason)
        }
    }
}

/// A read or write through a ``UserDatabase`` that the security rules deny. Nothing of a denied write was
/// written.
///
/// Its ``description`` names only the location; which rule decided is in ``reason``, for the developer's
/// logs. A callable function that lets it escape answers `INTERNAL`, like any error it does not choose to
/// show: throw ``callableError`` (`PERMISSION_DENIED`) or ``httpError(_:)`` instead to tell the caller.
public struct PermissionDeniedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The location read or written (`/items/u1`; for an update or a push, the location it is relative to).
    public let path: String
    /// Which rule decided, for development diagnostics only: never send it to a client. Nil when no single
    /// rule decided.
    public let reason: String?

    /// A denial at `path`.
    public init(path: String, reason: String? = nil) {
        self.path = path
        self.reason = reason
    }

    /// `Permission denied: /items/u1` (no rule text).
    public var description: String { "Permission denied: \(path)" }

    /// The callable protocol's `PERMISSION_DENIED` (HTTP 403) with the message "Permission denied", naming
    /// neither the location nor the rule.
    public var callableError: CallableError { CallableError(.permissionDenied, "Permission denied") }

    /// An HTTP function's answer: `status` (403 by default; Firebase's REST API answers 401) with the
    /// message "Permission denied".
    public func httpError(_ status: HTTPResponse.Status = .forbidden) -> HTTPFunctionError {
        HTTPFunctionError(status, message: "Permission denied")
    }
}

extension AdminDatabase {
    /// This database acting as the caller of a callable or HTTP function: every read and write is checked
    /// by the rules with the `auth` the caller's own client would have (`{uid, provider, token}`, built from
    /// its verified ID token as the REST and realtime edges build it). Nil acts as a signed-out user
    /// (`auth == null` in the rules).
    ///
    /// ```swift
    /// let items = try await context.database.as(request.auth).get("/items/\(uid)")
    /// ```
    public func `as`(_ auth: CallableAuth?) -> UserDatabase {
        guard let auth else { return UserDatabase(admin: self, auth: nil) }
        return UserDatabase(admin: self, auth: Self.authVariable(uid: auth.uid, token: auth.token))
    }

    /// This database acting as the user `uid`, whose ID token would carry `claims` (custom claims such as
    /// `{"admin": true}`, and any standard claim to set: `email`, `firebase.sign_in_provider`…). The rules see
    /// `auth.uid == uid` and `auth.token` = the claims with `sub` and `user_id` set to `uid` and
    /// `firebase.sign_in_provider` `"custom"` unless given (as after a custom-token sign-in); `auth.provider`
    /// is that provider. Claims that are not a JSON object count as none.
    public func `as`(uid: String, claims: JSONValue = .object([])) -> UserDatabase {
        var token: [JSONMember] = []
        if case .object(let members) = claims { token = members }
        func add(_ key: String, _ value: JSONValue) {
            if !token.contains(where: { $0.key == key }) { token.append(JSONMember(key, value)) }
        }
        add("sub", .string(uid))
        add("user_id", .string(uid))
        add("firebase", .object([JSONMember("sign_in_provider", .string("custom"))]))
        return UserDatabase(admin: self, auth: Self.authVariable(uid: uid, token: .object(token)))
    }

    /// The rules' `auth` as the server's edges build it from ID-token claims.
    private static func authVariable(uid: String, token: JSONValue) -> JSONValue {
        let provider = token["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        return .object([JSONMember("uid", .string(uid)), JSONMember("provider", .string(provider)), JSONMember("token", token)])
    }
}
