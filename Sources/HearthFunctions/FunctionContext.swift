public import AsyncHTTPClient
import Foundation
import HTTPTypes
public import HearthAuth
public import HearthCore
/// Public: functions send `PushNotification`s through `context.messaging` and `AtomicWrites.send`.
public import HearthMessaging
import HearthDatabase
import HearthLinks
import HearthStorage
import HearthStore
public import Logging
import Synchronization

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
    /// Short links (nil when the server runs without them).
    public let links: AdminLinks?
    /// Push notifications (nil when the server has no APNs or FCM credentials).
    public let messaging: AdminMessaging?
    /// Shared by all functions; do not shut it down.
    public let httpClient: HTTPClient
    /// The outside services the server is configured with (geocoder, smart home, weather); each nil when
    /// there is none. See ``OutsideServices``.
    public let services: OutsideServices
    /// The registered name of the running function.
    public let functionName: String
    /// Where clients reach this server: `--public-url`, else the address it listens on (`http://127.0.0.1:9000`);
    /// nil until the server listens. What links a function stores or sends should start with.
    public let publicURL: String?
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

    /// Reads and writes any number of locations as one atomic step: `body` runs inside the database's
    /// writer, sees the data as it is at that moment (``AtomicSnapshot``), and records the writes to make
    /// (``AtomicWrites``); they commit together, before any other write, on this node or any other sharing
    /// the store. Unlike ``transaction(_:namespace:_:)`` nothing is ever retried, however many callers
    /// contend for the same locations: a counter that a thousand calls move at once takes a thousand writes.
    ///
    /// A throw from `body` writes nothing and is rethrown here (a ``CallableError`` reaches the caller of a
    /// callable as it is). The namespace's other writes wait while `body` runs: read only what it needs.
    /// Returns what `body` returned. A trigger that uses it stays exactly-once by reading what it would
    /// change (write only if the wallet is still absent, say), since there is no idempotency key.
    public func atomically<R: Sendable>(
        namespace: String? = nil, _ body: @escaping @Sendable (AtomicSnapshot, inout AtomicWrites) throws -> R
    ) async throws -> R {
        // Without a key nothing is ever "already applied": nil cannot come back.
        guard let result = try await computedWrite(claiming: nil, namespace: namespace, body) else {
            throw FunctionsError("The atomic write did not run")
        }
        return result
    }

    /// ``atomically(namespace:_:)`` at most once per `key`: the first call that commits claims `key` in the
    /// same transaction as its writes; any later call with the same key runs nothing, writes nothing and
    /// returns nil. Pass a trigger event's `id` and a retried event (the outbox delivers at least once, in any
    /// order) applies its effect exactly once.
    ///
    /// ```swift
    /// try functions.onValueCreated("/orders/{id}") { event, context in
    ///     try await context.database.atomically(once: event.id) { data, writes in
    ///         let stock = try data.value("stock/\(item)").doubleValue ?? 0
    ///         writes["stock/\(item)"] = .int(Int64(stock) - 1)
    ///     }
    /// }
    /// ```
    ///
    /// - The key is checked inside the writer, before `body` runs: a repeat never runs `body`, so it cannot
    ///   decide differently on data that has changed since (or throw where the first run did not).
    /// - A `body` that records no writes still claims the key (an empty commit changes no data and fires no
    ///   trigger): "nothing to do" is the effect, and a repeat finds the key taken, whatever the data says then.
    /// - A throw from `body` writes nothing, claims nothing and is rethrown: the event's retry runs it again.
    /// - Keys are remembered for 30 days, shared with the `idempotencyKey:` of ``set(_:_:namespace:idempotencyKey:)``
    ///   and the other writes, per database (`namespace`).
    ///
    /// Returns what `body` returned, or nil when `key` was already claimed.
    public func atomically<R: Sendable>(
        once key: String, namespace: String? = nil, _ body: @escaping @Sendable (AtomicSnapshot, inout AtomicWrites) throws -> R
    ) async throws -> R? {
        guard !key.isEmpty else { throw FunctionsError("An idempotency key must not be empty") }
        return try await computedWrite(claiming: key, namespace: namespace, body)
    }

    /// What `body` of an atomic write did inside the writer.
    private enum AtomicOutcome<R: Sendable>: Sendable {
        case ran(R)
        case alreadyApplied
        case failed(any Error)
    }

    /// Both `atomically`s: `body` runs inside the writer; with a `key`, only if the key was not claimed before, and the
    /// write claims it even when `body` records nothing. Nil when the key was already claimed.
    private func computedWrite<R: Sendable>(
        claiming key: String?, namespace: String?, _ body: @escaping @Sendable (AtomicSnapshot, inout AtomicWrites) throws -> R
    ) async throws -> R? {
        let service = self.service
        let outcome = Mutex<AtomicOutcome<R>?>(nil)
        var request = WriteRequest.computed(at: .root) { data, now, events in
            // Checked first: `Database.apply` checks the key only after the operation is computed, and not at all
            // when there is none. This read and the claim are in one transaction of the serial writer.
            if let key, try data.isClaimed(key) {
                outcome.withLock { $0 = .alreadyApplied }
                return nil
            }
            do {
                var writes = AtomicWrites()
                let result = try body(AtomicSnapshot(data: data, now: now), &writes)
                outcome.withLock { $0 = .ran(result) }
                events += writes.pushes.map { WriteRequest.QueuedEvent(function: QueuedPush.function, payload: $0.payload) }
                // With a key, an empty update still commits, and so claims the key; without one, nothing is written.
                if writes.values.isEmpty { return key == nil ? nil : .update([], priorities: []) }
                return try service.updateOperation(writes.values.map { JSONMember($0.key, $0.value) }, at: .root)
            } catch {
                outcome.withLock { $0 = .failed(error) }
                return nil
            }
        }
        request.idempotencyKey = key
        let stamped = stamped(request)
        do {
            _ = try await withDatabase(namespace) { db in try await db.write(stamped) }
        } catch is AlreadyApplied {
            return nil
        }
        switch outcome.withLock({ $0 }) {
        case .ran(let result)?: return result
        case .alreadyApplied?: return nil
        case .failed(let error)?: throw error
        case nil: throw FunctionsError("The atomic write did not run")
        }
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
    /// The server's public URL (see ``FunctionContext/publicURL``), for download URLs.
    let publicURL: String?

    /// The default bucket's name (`<project>.appspot.com`).
    public var defaultBucket: String { service.defaultBucket }

    /// An object's metadata; nil when absent.
    public func object(_ name: String, bucket: String? = nil) async throws -> ObjectRecord? {
        try await service.object(bucket: bucket ?? service.defaultBucket, name: name)
    }

    /// The Firebase download URL of `object` (`{public URL}/v0/b/{bucket}/o/{name}?alt=media&token={token}`, what
    /// `getDownloadURL()` gives a client), so that a function can store a link an app shows as it is. Nil when the
    /// object has no download token (one not uploaded through the Firebase API, until a token is added) or the server's
    /// address is not known yet.
    public func downloadURL(for object: ObjectRecord) -> String? {
        guard let base = publicURL, let token = object.downloadTokens.first else { return nil }
        func encoded(_ segment: String) -> String {
            var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            unreserved.insert(charactersIn: "-._~")
            return segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? segment
        }
        return "\(base)/v0/b/\(encoded(object.bucket))/o/\(encoded(object.name))?alt=media&token=\(encoded(token))"
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

/// The data as an atomic write (``AdminDatabase/atomically(namespace:_:)``) sees it.
public struct AtomicSnapshot {
    let data: any StoreReader
    /// The write's time, milliseconds since 1970: what `{".sv": "timestamp"}` becomes in this write.
    public let now: Int64

    /// The value at `path` (`.null` when absent).
    public func value(_ path: String) throws -> JSONValue {
        let p: Path
        do {
            p = try Path.validated(path)
        } catch {
            throw FunctionsError("Invalid path \"\(path)\": \(error.message)")
        }
        return try JSONValue.parse(try data.read(p).jsonBytes())
    }

    /// The value at `path` decoded; nil when absent.
    public func value<T: Decodable>(_ path: String, as type: T.Type) throws -> T? {
        let value = try value(path)
        if value == .null { return nil }
        return try FunctionCoding.decode(type, from: value)
    }
}

/// The writes an atomic write makes: absolute paths (`"wallets/u1/coins"`) with their new values (server
/// values allowed; `.null` removes). Two paths may not overlap (one inside the other).
public struct AtomicWrites: Sendable {
    /// Path to value, committed together.
    public var values: [String: JSONValue] = [:]
    /// Push notifications queued with the writes (``send(_:to:)``).
    public private(set) var pushes: [QueuedPush] = []

    /// Queues a push notification in the same transaction as the writes: it goes out only if they commit,
    /// and a crash after the commit delays it but never loses it. Throws a ``PushError`` for a notification
    /// or target that cannot be sent (the whole atomic write then fails, writing nothing).
    public mutating func send(_ notification: PushNotification, to target: PushTarget) throws {
        try notification.validate()
        try target.validate()
        pushes.append(QueuedPush(notification, to: .target(target)))
    }

    /// Sets the value at `path`.
    public subscript(path: String) -> JSONValue? {
        get { values[Self.trimmed(path)] }
        set { values[Self.trimmed(path)] = newValue }
    }

    /// Sets an encoded `Codable` value at `path`.
    public mutating func set(_ path: String, _ value: some Encodable) throws {
        values[Self.trimmed(path)] = try FunctionCoding.encode(value)
    }

    private static func trimmed(_ path: String) -> String {
        String(path.drop { $0 == "/" })
    }
}

/// Short links with admin access, for functions: an invite link made for a user, say.
public struct AdminLinks: Sendable {
    let service: LinkService

    /// The prefixes links may be made on (`--link-domains`), in configured order.
    public var domains: [String] { service.domains.map(\.prefix) }

    /// Makes (or finds again: the same arguments give the same link) a short link that opens `link`.
    /// - Parameters:
    ///   - link: the deep link, an absolute http(s) URL the allowlist allows.
    ///   - domain: a configured prefix; nil for the first one (an error when none is configured).
    ///   - inviter: stored with the link and returned as `invitationId` by `reopenAttribution`.
    ///   - parameters: further link parameters (`ibi`, `apn`, `ofl`, …).
    ///   - short: a 4-character suffix instead of the default unguessable 17 characters.
    public func create(link: String, domain: String? = nil, inviter: String? = nil, parameters: [String: String] = [:], short: Bool = false)
        async throws -> String
    {
        guard let prefix = domain ?? service.domains.first?.prefix else {
            throw FunctionsError("No link domain is configured (--link-domains)")
        }
        var all = parameters
        all["link"] = link
        let made = try await service.create(
            link: DynamicLink(prefix: prefix, parameters: all), option: short ? .short : .unguessable, inviter: inviter)
        return made.shortLink
    }
}
