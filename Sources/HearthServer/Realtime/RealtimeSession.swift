import HearthCore
import HearthDatabase
import HearthRules
import HearthStore
import HearthWire
import Logging
import NIOCore
import Synchronization

/// One realtime (WebSocket protocol v5) connection: its identity, its listens and its
/// onDisconnect queue. Requests are handled in arrival order; pushes for a listen start only
/// after its initial data went out, and never repeat a change the initial data already held.
///
/// The session knows nothing about sockets: messages come in through `receive(_:)`, go out through
/// the outbox, and the connection calls `disconnected()` when the socket closes. Tests drive it
/// directly.
actor RealtimeSession {
    /// A listen as the client names it: path plus wire query (nil for a plain listen).
    struct ListenKey: Hashable, Sendable {
        var path: Path
        var query: JSONValue?
    }

    struct Listen {
        var key: ListenKey
        var query: Query?
        var tag: Int?
        var hubID: Int
        /// Whether the hub checks rules for it (the identity is not admin).
        var checksRules: Bool
        /// Orders the hub's deliveries with what the session sends (and holds the commit
        /// sequence the client's data reflects).
        var gate: ListenGate
        /// Last query result sent (tagged queries are re-run and re-sent when they change).
        var current: Node = .empty
    }

    enum DisconnectOperation {
        case set(ParsedWrite)
        case update(WriteRequest.Operation)
    }

    /// The database this session is an adapter of (results and errors mapped to the realtime protocol).
    let database: DatabaseService
    /// Turns an `auth` credential into a caller.
    let authenticator: Authenticator
    let namespace: Namespace
    let outbox: RealtimeOutbox
    let logger: Logger
    /// What the hub hands the session (re-queries, re-checks) with the listener's hub id, handled
    /// in order by a task that runs only while there is something to do.
    private let deliveries: SerialWork<(RealtimeSession, Int, Delivery)>

    /// Who the connection acts as. Changed only by ``enter(_:)``.
    private var auth: AuthState = .signedOut
    private var listens: [ListenKey: Listen] = [:]
    private var keysByHubID: [Int: ListenKey] = [:]
    private var onDisconnect: [(path: Path, operation: DisconnectOperation)] = []
    private var ended = false
    private let deliveryLimit: Int
    /// Told whether a credential is accepted, each time that changes (the connection lets a
    /// signed-in client send larger messages).
    private let reportSignedIn: @Sendable (Bool) -> Void

    /// - Parameters:
    ///   - deliveryLimit: undelivered hub events before the connection counts as too slow.
    ///   - signedIn: told whether the connection's credential is accepted, after each `auth`,
    ///     `gauth`, `unauth` and token expiry.
    init(
        database: DatabaseService, authenticator: Authenticator, namespace: Namespace, outbox: RealtimeOutbox, logger: Logger, deliveryLimit: Int = 4096,
        signedIn: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        reportSignedIn = signedIn
        self.database = database
        self.authenticator = authenticator
        self.namespace = namespace
        self.outbox = outbox
        self.logger = logger
        self.deliveryLimit = deliveryLimit
        deliveries = SerialWork(limit: deliveryLimit) { session, hubID, delivery in await session.handleDelivery(hubID, delivery) }
    }

    // MARK: Incoming

    /// Handles one reassembled client message.
    func receive(_ text: String) async {
        let message: RealtimeMessage
        do {
            message = try RealtimeMessage(parsing: text)
        } catch {
            outbox.send(.control(type: .error, payload: .string("Unparseable message: \(error.description)")))
            return
        }
        switch message {
        case .control(let type, _):
            if type == .ping { outbox.send(.pong) }
        case .request(let id, let action, let body):
            await expireAuthIfNeeded()
            await handle(id: id, action: action, body: body)
        case .response, .push, .error:
            break
        }
    }

    private func respond(_ id: Int, _ status: RealtimeStatus = .ok, _ data: JSONValue = .string("")) {
        outbox.send(.response(id: id, status: status, data: data))
    }

    private func handle(id: Int, action: RealtimeAction, body: JSONValue) async {
        if let refusal = limits?.check(uid: limitedUID, admin: isAdmin) {
            respond(id, .unavailable, .string(refusal.message))
            return
        }
        do {
            switch action {
            case .stats, .appCheck, .appCheckRemove:
                respond(id)
            case .auth, .googleAuth:
                await authenticate(id, body)
            case .unauth:
                enter(.signedOut)
                respond(id)
                await recheckAll()
            case .listen, .legacyListen:
                try await listen(id, try decoded(body, as: RealtimeListenRequest.init(body:)))
            case .unlisten, .legacyUnlisten:
                try unlisten(try decoded(body, as: RealtimeListenRequest.init(body:)))
                respond(id)
            case .get:
                try await get(id, try decoded(body, as: RealtimeGetRequest.init(body:)))
            case .put:
                try await put(id, try decoded(body, as: RealtimeWriteRequest.init(body:)))
            case .merge:
                try await merge(id, try decoded(body, as: RealtimeWriteRequest.init(body:)))
            case .onDisconnectPut, .onDisconnectMerge:
                try await registerOnDisconnect(id, try decoded(body, as: RealtimeWriteRequest.init(body:)), merge: action == .onDisconnectMerge)
            case .onDisconnectCancel:
                let path = try database.path(try decoded(body, as: RealtimeWriteRequest.init(body:)).path)
                onDisconnect.removeAll { path.isAncestor(ofOrEqualTo: $0.path) }
                respond(id)
            case .other:
                respond(id, .failed, .string("Unknown action \(action)"))
            }
        } catch let e as DatabaseError {
            switch e {
            case .permissionDenied: respond(id, .permissionDenied, .string("Permission denied"))
            case .invalid, .namespace: respond(id, .failed, .string(e.description))
            }
        } catch let e as StoreFullError {
            logger.error("write refused: the disk is full", metadata: ["hearth.error": "\(e.detail)"])
            respond(id, .unavailable, .string(e.description))
        } catch {
            logger.error("realtime request failed", metadata: ["hearth.action": "\(action)", "hearth.error": "\(error)"])
            respond(id, .unavailable, .string("Internal error"))
        }
    }

    /// A request body read as its HearthWire type; a malformed one is answered `failed` with its text.
    private func decoded<Body>(_ body: JSONValue, as read: (JSONValue) throws(RealtimeBodyError) -> Body) throws(DatabaseError) -> Body {
        do {
            return try read(body)
        } catch {
            throw .invalid(error.message)
        }
    }

    // MARK: Auth

    private func authenticate(_ id: Int, _ body: JSONValue) async {
        let request: RealtimeAuthRequest
        do {
            request = try RealtimeAuthRequest(body: body)
        } catch {
            respond(id, .invalidToken, .string(error.message))
            return
        }
        let credential = request.credential
        if authenticator.isAdmin(credential) {
            if let authvar = request.authvar {
                enter(.admin(actingAs: .user(authvar)))
                respond(id, .ok, .object([JSONMember("auth", authvar), JSONMember("admin", .bool(false))]))
            } else if request.noauth {
                enter(.admin(actingAs: .user(nil)))
                respond(id, .ok, .object([JSONMember("auth", .null), JSONMember("admin", .bool(false))]))
            } else {
                enter(.admin(actingAs: .admin))
                respond(id, .ok, .object([JSONMember("auth", .null), JSONMember("admin", .bool(true))]))
            }
        } else {
            // ID tokens Hearth signed, and in `--dev` unsigned ones too; the session honours `exp` for both (tests rely
            // on watching an unsigned token expire).
            let checked = Result { () throws(Authenticator.Refusal) in try authenticator.user(credential) }
            if case .success(let auth) = checked {
                let claims = auth["token"] ?? .null
                var expires: Int64?
                if case .int(let exp)? = claims["exp"] { expires = exp }
                enter(.user(auth, expires: expires, timer: expires.map(expiryTimer)))
                respond(id, .ok, .object([JSONMember("auth", claims), JSONMember("expires", expires.map { .int($0) } ?? .null)]))
            } else {
                enter(.signedOut)
                // An already-expired token is refused now, not answered ok and revoked a moment later.
                if case .failure(.expired) = checked {
                    respond(id, .expiredToken, .string("Auth token is expired."))
                } else {
                    respond(id, .invalidToken, .string("Could not parse auth token."))
                }
            }
        }
        await recheckAll()
    }

    /// The auth state a connection can be in; ``enter(_:)`` is the one transition.
    private enum AuthState {
        /// No credential, or one refused, withdrawn (`unauth`) or expired.
        case signedOut
        /// The admin credential, acting as the admin (rules skipped) or, with `authvar`/`noauth`, as that user.
        case admin(actingAs: Access)
        /// An ID token's user until `expires` (seconds since 1970; nil when the token has no `exp`); `timer`
        /// wakes the session then, so an idle client stops receiving what it may no longer read.
        case user(JSONValue, expires: Int64?, timer: Task<Void, Never>?)

        /// Who the rules see.
        var access: Access {
            switch self {
            case .signedOut: .user(nil)
            case .admin(let access): access
            case .user(let auth, _, _): .user(auth)
            }
        }
    }

    /// Who the rules see for this connection now.
    private var access: Access { auth.access }
    /// The rate limits and the most listens (set when the connection opens; nil: none).
    private var limits: RealtimeLimits?
    /// The uid a request counts against (nil: signed out, or the admin).
    private var limitedUID: String? { if case .user(let auth, _, _) = auth { auth["uid"]?.stringValue } else { nil } }
    /// Whether the connection holds the admin credential (not rate limited).
    private var isAdmin: Bool { if case .admin = auth { true } else { false } }

    /// Sets the limits this connection's requests are held to.
    func useLimits(_ limits: RealtimeLimits) { self.limits = limits }

    /// Moves to `state`: the previous state's expiry timer is cancelled, and the connection is told whether a
    /// credential counts (a signed-in client may send larger messages).
    private func enter(_ state: AuthState, report: Bool = true) {
        if case .user(_, _, let timer?) = auth { timer.cancel() }
        auth = state
        guard report else { return }
        if case .signedOut = state { reportSignedIn(false) } else { reportSignedIn(true) }
    }

    /// A task that checks the token's expiry once `expires` (seconds since 1970) has come.
    private func expiryTimer(_ expires: Int64) -> Task<Void, Never> {
        let delay = max(0, expires * 1000 - database.clock())
        return Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(delay))
            guard !Task.isCancelled else { return }
            await self?.expireAuthIfNeeded()
        }
    }

    /// An ID token that expired while the connection stayed open stops counting: the client is
    /// told (`ac`) and continues signed out.
    private func expireAuthIfNeeded() async {
        guard case .user(_, let expires?, _) = auth, database.clock() / 1000 >= expires else { return }
        enter(.signedOut)
        outbox.send(.push(action: .authRevoked, body: RealtimeAuthRevoked(status: .expiredToken, reason: "Auth token is expired.").body))
        await recheckAll()
    }

    // MARK: Listens

    private func listen(_ id: Int, _ request: RealtimeListenRequest) async throws {
        let path = try database.path(request.path)
        var query = try requestQuery(request.parsedQuery)
        let wireQuery = request.queryObject
        let tag = request.tag
        // A query without range or limit returns the whole location: served as a plain listen.
        if let q = query, q.isUnfiltered, tag == nil { query = nil }
        let key = ListenKey(path: path, query: wireQuery)
        // Listening again to what is already listened starts it over: the client gets the current
        // data before the `ok`, as for any listen (rtdb.md 6.5), and still one hub listener.
        if listens[key] != nil { drop(key) }
        if let limits, !limits.mayListen(holding: listens.count) {
            respond(id, .failed, .string(limits.listenRefusal))
            return
        }
        var warnings: [JSONValue] = []
        if let query, !isIndexed(query, at: path) { warnings.append(.string("no_index")) }
        let checks = access.userAuth != nil
        let (hubID, gate) = register(path: path, isQuery: query != nil, checksRules: checks, rules: namespace.rules.ruleSet)
        listens[key] = Listen(key: key, query: query, tag: tag, hubID: hubID, checksRules: checks, gate: gate)
        keysByHubID[hubID] = key
        let snapshot: (Node, UInt64)
        do {
            snapshot = try await database.checkedRead(path, in: namespace, access: access, query: query, rulesQuery: query)
        } catch {
            drop(key)
            throw error
        }
        guard var state = listens[key], state.hubID == hubID else { return }
        state.current = snapshot.0
        listens[key] = state
        gate.advance(to: snapshot.1)
        outbox.send(RealtimeMessage.dataPush(path: path, node: snapshot.0, tag: tag))
        // Changes committed since the snapshot follow the initial data.
        await drain(key, hubID: hubID)
        respond(id, .ok, warnings.isEmpty ? .object([]) : .object([JSONMember("w", .array(warnings))]))
    }

    private func register(path: Path, isQuery: Bool, checksRules: Bool, rules: RuleSet) -> (Int, ListenGate) {
        let deliveries = self.deliveries
        let outbox = self.outbox
        let gate = ListenGate(outbox: outbox, limit: deliveryLimit)
        let localID = Mutex<Int>(0)
        // The hub calls this under its lock: plain events go straight out through the gate;
        // the rest is handed to the session's delivery task.
        let sink = RealtimeHub.Sink(
            yield: { [weak self] delivery in
                if let forward = gate.offer(delivery), let self, !deliveries.add((self, localID.withLock { $0 }, forward)) {
                    outbox.abandon()
                }
                return !outbox.isOverflowing
            },
            finish: {})
        let id = namespace.hub.register(
            location: path, encoding: .realtime, isQuery: isQuery, checksRules: checksRules,
            dataDependent: checksRules && rules.readDependsOnData(path), sink: sink)
        localID.withLock { $0 = id }
        return (id, gate)
    }

    private func isIndexed(_ query: Query, at path: Path) -> Bool {
        DatabaseService.indexName(query).map { namespace.rules.hasIndex($0, at: path) } ?? true
    }

    /// A request's query parsed; a malformed one is answered `failed` with its text.
    private func requestQuery(_ parse: () throws(QueryError) -> Query?) throws(DatabaseError) -> Query? {
        do {
            return try parse()
        } catch {
            throw .invalid(error.message)
        }
    }

    /// Stops the listen with exactly this path and query; an unlisten of anything else does nothing.
    /// (It once fell back to the plain listen on the path, so an unlisten crossing a revoked query's
    /// `c` silenced the client's other listener there.)
    private func unlisten(_ request: RealtimeListenRequest) throws {
        let path = try database.path(request.path)
        drop(ListenKey(path: path, query: request.queryObject))
    }

    private func drop(_ key: ListenKey) {
        guard let listen = listens.removeValue(forKey: key) else { return }
        keysByHubID[listen.hubID] = nil
        namespace.hub.unregister(id: listen.hubID, location: key.path)
    }

    /// Something the hub delivered for one of this session's listens (the listen's gate is
    /// closed until it is handled).
    func handleDelivery(_ hubID: Int, _ delivery: Delivery) async {
        guard let key = keysByHubID[hubID] else { return }
        await process(key, hubID: hubID, delivery)
        await drain(key, hubID: hubID)
    }

    /// Lets the gate pass held events, handling any held re-query or re-check on the way.
    private func drain(_ key: ListenKey, hubID: Int) async {
        while let listen = listens[key], listen.hubID == hubID, let next = listen.gate.resume() {
            await process(key, hubID: hubID, next)
        }
    }

    private func process(_ key: ListenKey, hubID: Int, _ delivery: Delivery) async {
        guard let listen = listens[key], listen.hubID == hubID else { return }
        switch delivery {
        case .keepAlive, .event:
            // Events pass through the gate, never through here.
            return
        case .requery(let sequence):
            guard sequence > listen.gate.seen, let query = listen.query else { return }
            let path = key.path
            guard let result = try? await namespace.database.store.snapshot({ reader in
                (try reader.query(path, query), try reader.sequence())
            }) else { return }
            let (node, at) = result
            guard var fresh = listens[key], fresh.hubID == hubID, at > fresh.gate.seen else { return }
            fresh.gate.advance(to: at)
            if node != fresh.current {
                fresh.current = node
                outbox.send(RealtimeMessage.dataPush(path: path, node: node, tag: fresh.tag))
            }
            listens[key] = fresh
        case .resync:
            // Commits were lost on the way here: the listen's whole value again, then what follows it.
            let path = key.path
            let query = listen.query
            guard let result = try? await namespace.database.store.snapshot({ reader in
                (try query.map { try reader.query(path, $0) } ?? reader.read(path), try reader.sequence())
            }) else { return }
            let (node, at) = result
            guard var fresh = listens[key], fresh.hubID == hubID else { return }
            fresh.gate.advance(to: at)
            fresh.current = node
            outbox.send(RealtimeMessage.dataPush(path: path, node: node, tag: fresh.tag))
            listens[key] = fresh
        case .recheck:
            await expireAuthIfNeeded()
            if listens[key]?.hubID == hubID, !(await mayRead(key, query: listen.query)) { revoke(key) }
        }
    }

    private func mayRead(_ key: ListenKey, query: Query?) async -> Bool {
        await database.mayRead(key.path, in: namespace, access: access, query: query)
    }

    /// Ends a listen the client may no longer read (`c` push).
    private func revoke(_ key: ListenKey) {
        drop(key)
        let revoked = RealtimeListenRevoked(path: key.path.keys.map(\.string).joined(separator: "/"), query: key.query)
        outbox.send(.push(action: .listenRevoked, body: revoked.body))
    }

    /// After the identity changed: listens the client may no longer read are revoked, and the rest
    /// keep (or stop) being checked by the hub according to the new identity.
    private func recheckAll() async {
        for key in Array(listens.keys) {
            guard var listen = listens[key] else { continue }
            if await mayRead(key, query: listen.query) {
                // Re-register only when the hub must start or stop checking rules (admin ↔ user);
                // a refreshed token for the same kind of identity keeps the registration. The new
                // listener starts before the old one ends; once the old one receives nothing more,
                // the new gate takes over what it sent and what it still held, so nothing is sent
                // twice or lost in between.
                let checks = access.userAuth != nil
                guard checks != listen.checksRules else { continue }
                let old = listen
                let (hubID, gate) = register(path: key.path, isQuery: listen.query != nil, checksRules: checks, rules: namespace.rules.ruleSet)
                namespace.hub.unregister(id: old.hubID, location: key.path)
                gate.takeOver(from: old.gate)
                keysByHubID[old.hubID] = nil
                listen.hubID = hubID
                listen.checksRules = checks
                listen.gate = gate
                keysByHubID[hubID] = key
                listens[key] = listen
                await drain(key, hubID: hubID)
            } else if listens[key] != nil {
                revoke(key)
            }
        }
    }

    // MARK: Reads and writes

    private func get(_ id: Int, _ request: RealtimeGetRequest) async throws {
        let path = try database.path(request.path)
        let asked = try requestQuery(request.parsedQuery)
        // An order-only query reads like a plain get, but the rules still see its order (`query.orderByChild`),
        // as they do for the same REST read.
        let query = asked.flatMap { $0.isUnfiltered ? nil : $0 }
        if let query { try await database.checkIndexUnderNewestRules(query, in: namespace, at: path) }
        let (node, _) = try await database.checkedRead(path, in: namespace, access: access, query: query, rulesQuery: asked)
        outbox.send(RealtimeMessage.dataResponse(id: id, node: node))
    }

    private func put(_ id: Int, _ body: RealtimeWriteRequest) async throws {
        let data = body.data
        let ifMatch = body.hash.map { $0.isEmpty ? Node.empty.etag : $0 }
        let request: WriteRequest
        let segments = body.path.split(separator: "/")
        if segments.last == ".priority" {
            let path = try database.path(segments.dropLast().joined(separator: "/"))
            request = WriteRequest(path: path, operation: try database.priorityOperation(data), ifMatch: ifMatch)
        } else {
            let path = try database.path(body.path)
            request = WriteRequest(path: path, operation: .set(try database.parseWrite(data, at: path)), ifMatch: ifMatch)
        }
        // With `h` (a transaction) the write needs read access too: `ok` or `datastale` would answer whether the
        // hash, and so the caller's guess of the value, was right. The writer refuses it as `permission_denied`.
        try await write(id, request)
    }

    private func merge(_ id: Int, _ body: RealtimeWriteRequest) async throws {
        let path = try database.path(body.path)
        guard case .object(let members) = body.data else { throw DatabaseError.invalid(ErrorMessage.invalidPatch) }
        try await write(id, WriteRequest(path: path, operation: try database.updateOperation(members, at: path)))
    }

    private func write(_ id: Int, _ request: WriteRequest) async throws {
        let outcome = try await database.commit(request, namespace: namespace, access: access)
        // The client's own listens (and, after a stale hash, its next attempt) must see this write and
        // everything committed before it before the answer: the hub has handed the changes to every listen,
        // and the queries they made re-run (and the rules re-checks) have been done. The client drops its
        // local copy of the write on the `ok`. Without listens there is nothing to wait for.
        if !listens.isEmpty {
            await namespace.hub.published()
            await deliveries.handledAll()
        }
        switch outcome {
        case .committed:
            respond(id)
        case .preconditionFailed:
            respond(id, .dataStale, .string("Transaction hash does not match"))
        }
    }

    // MARK: onDisconnect

    private func registerOnDisconnect(_ id: Int, _ body: RealtimeWriteRequest, merge: Bool) async throws {
        let path = try database.path(body.path)
        let data = body.data
        let operation: DisconnectOperation
        var writes: [(Path, ParsedWrite)] = []
        var priorities: [(path: Path, priority: Leaf?)] = []
        if merge {
            guard case .object(let members) = data else { throw DatabaseError.invalid(ErrorMessage.invalidPatch) }
            let update = try database.updateOperation(members, at: path)
            if case .update(let entries, let changes) = update {
                writes = entries.map { (path.appending($0.path), $0.value) }
                priorities = changes.map { (path.appending($0.path), $0.priority) }
            }
            operation = .update(update)
        } else {
            let parsed = try database.parseWrite(data, at: path)
            writes = [(path, parsed)]
            operation = .set(parsed)
        }
        // The permission is checked now (as Firebase does) and again when the operation runs.
        guard try await database.mayWrite(writes, priorities: priorities, in: namespace, access: access) else {
            RuleDenials.count(.database, .write)
            throw DatabaseError.permissionDenied(reason: nil)
        }
        onDisconnect.append((path, operation))
        respond(id)
    }

    /// The socket closed: run the onDisconnect queue in registration order, end every listen.
    func disconnected() async {
        guard !ended else { return }
        ended = true
        enter(.signedOut, report: false)
        for key in Array(listens.keys) { drop(key) }
        deliveries.finish()
        outbox.close()
        let queue = onDisconnect
        onDisconnect = []
        for (path, operation) in queue {
            let request: WriteRequest
            switch operation {
            case .set(let parsed): request = WriteRequest(path: path, operation: .set(parsed))
            case .update(let update): request = WriteRequest(path: path, operation: update)
            }
            do {
                _ = try await database.commit(request, namespace: namespace, access: access)
            } catch {
                logger.debug("onDisconnect write not applied", metadata: ["hearth.path": "\(path)", "hearth.error": "\(error)"])
            }
        }
    }

    var listenCount: Int { listens.count }
}
