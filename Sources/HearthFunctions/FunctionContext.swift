public import AsyncHTTPClient
import Foundation
import HTTPTypes
public import HearthAuth
public import HearthCore
import HearthDatabase
import HearthStorage
import HearthStore
public import Logging

/// What every function gets: a logger, admin clients for the database, accounts and files, and an
/// HTTP client for outside services.
public struct FunctionContext: Sendable {
    /// Tagged with the function's name (`hearth.function`).
    public let logger: Logger
    /// The database with admin access (rules do not apply).
    public let database: AdminDatabase
    /// Accounts (nil when the server runs without auth).
    public let auth: AuthService?
    /// Files (nil when the server runs without storage).
    public let storage: AdminStorage?
    /// Shared by all functions; do not shut it down.
    public let httpClient: HTTPClient
    /// The registered name of the running function.
    public let functionName: String
}

/// The database with admin access, for functions. Paths are slash-separated (`/users/alice`).
///
/// Writes take an optional idempotency key: the first write with a key commits and claims it in the
/// same transaction; a later write with the same key writes nothing and returns false. Pass a
/// trigger event's `id` and a retried trigger cannot apply its effect twice.
public struct AdminDatabase: Sendable {
    let service: DatabaseService
    let defaultNamespace: String
    /// Given to every write (``WriteRequest/triggerDepth``): the depth of the trigger event being handled.
    var triggerDepth = 0

    /// Runs `body` with the namespace held (it is not closed as idle meanwhile). Outside `--dev` a
    /// namespace must exist (an admin creates it), as for any client.
    private func withDatabase<R: Sendable>(_ namespace: String?, _ body: (Database) async throws -> R) async throws -> R {
        let name = namespace ?? defaultNamespace
        guard NamespaceRegistry.isValid(name) else { throw FunctionsError("Invalid namespace \"\(name)\"") }
        do {
            return try await service.withNamespace(name) { try await body($0.database) }
        } catch DatabaseError.namespace(let error) where error.code == .notFound {
            throw FunctionsError("There is no database \"\(name)\"")
        }
    }

    private static func path(_ text: String) throws -> Path {
        do {
            return try Path.validated(text)
        } catch {
            throw FunctionsError("Invalid path \"\(text)\": \(error.message)")
        }
    }

    /// The value at `path` (`.null` when absent).
    public func get(_ path: String, namespace: String? = nil) async throws -> JSONValue {
        let p = try Self.path(path)
        let node = try await withDatabase(namespace) { db in try await db.store.snapshot { try $0.read(p) } }
        return try JSONValue.parse(node.jsonBytes())
    }

    /// The value at `path` decoded; nil when absent.
    public func get<T: Decodable>(_ path: String, as type: T.Type, namespace: String? = nil) async throws -> T? {
        let value = try await get(path, namespace: namespace)
        if value == .null { return nil }
        return try FunctionCoding.decode(type, from: value)
    }

    /// Replaces the value at `path` (server values such as `{".sv": "timestamp"}` allowed).
    @discardableResult
    public func set(_ path: String, _ value: JSONValue, namespace: String? = nil, idempotencyKey: String? = nil) async throws -> Bool {
        let p = try Self.path(path)
        let parsed = try Node.parseWrite(value, depth: p.count)
        return try await write(WriteRequest(path: p, operation: .set(parsed), idempotencyKey: idempotencyKey), namespace)
    }

    /// Replaces the value at `path` with an encoded `Codable` value.
    @discardableResult
    public func set(_ path: String, _ value: some Encodable & Sendable, namespace: String? = nil, idempotencyKey: String? = nil) async throws
        -> Bool
    {
        try await set(path, try FunctionCoding.encode(value), namespace: namespace, idempotencyKey: idempotencyKey)
    }

    /// A multi-path update relative to `path`, all or nothing: `["users/a/coins": .int(5), "log/x": …]`.
    @discardableResult
    public func update(_ path: String, _ values: [String: JSONValue], namespace: String? = nil, idempotencyKey: String? = nil) async throws
        -> Bool
    {
        let p = try Self.path(path)
        let members = values.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value) }
        let operation = try service.updateOperation(members, at: p)
        return try await write(WriteRequest(path: p, operation: operation, idempotencyKey: idempotencyKey), namespace)
    }

    /// Removes the value at `path`.
    @discardableResult
    public func remove(_ path: String, namespace: String? = nil, idempotencyKey: String? = nil) async throws -> Bool {
        try await set(path, .null, namespace: namespace, idempotencyKey: idempotencyKey)
    }

    /// Adds `value` under a new push id below `path`; returns the new child's key.
    public func push(_ path: String, _ value: JSONValue, namespace: String? = nil) async throws -> String {
        let p = try Self.path(path)
        let parsed = try Node.parseWrite(value, depth: p.count + 1)
        let request = stamped(WriteRequest(path: p, operation: .push(parsed)))
        let outcome = try await withDatabase(namespace) { db in try await db.write(request) }
        guard case .committed(.pushed(let key), _) = outcome else { throw FunctionsError("The push did not commit") }
        return key.string
    }

    /// Reads the value at `path`, computes a new one and writes it only if nothing changed it in
    /// between; otherwise runs `update` again with the newer value (up to 25 times). Returning nil
    /// from `update` aborts without writing. Returns the committed value (nil if aborted).
    @discardableResult
    public func transaction(
        _ path: String, namespace: String? = nil, _ update: @Sendable (JSONValue) throws -> JSONValue?
    ) async throws -> JSONValue? {
        let p = try Self.path(path)
        return try await withDatabase(namespace) { db in try await transaction(p, in: db, update) }
    }

    private func transaction(_ p: Path, in db: Database, _ update: @Sendable (JSONValue) throws -> JSONValue?) async throws -> JSONValue? {
        for _ in 0..<25 {
            let current = try await db.store.snapshot { try $0.read(p) }
            guard let next = try update(try JSONValue.parse(current.jsonBytes())) else { return nil }
            let parsed = try Node.parseWrite(next, depth: p.count)
            switch try await db.write(stamped(WriteRequest(path: p, operation: .set(parsed), ifMatch: current.etag))) {
            case .committed(.value(let node), _): return try JSONValue.parse(node.jsonBytes())
            case .committed: throw FunctionsError("The transaction at \(p) committed something other than a value")
            case .preconditionFailed: continue
            }
        }
        throw FunctionsError("The transaction at \(p) gave up after 25 attempts: the value kept changing")
    }

    /// `request` with this context's trigger depth.
    private func stamped(_ request: WriteRequest) -> WriteRequest {
        var request = request
        request.triggerDepth = triggerDepth
        return request
    }

    private func write(_ request: WriteRequest, _ namespace: String?) async throws -> Bool {
        do {
            let request = stamped(request)
            _ = try await withDatabase(namespace) { db in try await db.write(request) }
            return true
        } catch is AlreadyApplied {
            return false
        }
    }
}

/// Files with admin access, for functions.
public struct AdminStorage: Sendable {
    let service: StorageService

    /// The default bucket's name (`<project>.appspot.com`).
    public var defaultBucket: String { service.defaultBucket }

    /// An object's metadata; nil when absent.
    public func object(_ name: String, bucket: String? = nil) async throws -> ObjectRecord? {
        try await service.object(bucket: bucket ?? service.defaultBucket, name: name)
    }

    /// Deletes an object; false if there was none.
    @discardableResult
    public func delete(_ name: String, bucket: String? = nil) async throws -> Bool {
        do {
            try await service.delete(bucket: bucket ?? service.defaultBucket, name: name)
            return true
        } catch let error as StorageError where error.code == .notFound {
            return false
        }
    }
}
