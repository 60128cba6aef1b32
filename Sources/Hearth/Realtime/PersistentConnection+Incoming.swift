import HearthCore
import HearthWire

// What the server sends: the handshake and other control messages, answers, pushes.

extension PersistentConnection {
    /// One frame from socket `number`; frames of a dropped socket are ignored.
    func receive(_ frame: String, session number: Int) {
        guard var current = state.liveSession, current.number == number else { return }
        let text: String?
        do {
            text = try current.assembler.receive(frame)
        } catch {
            // The server broke the framing: nothing after this can be trusted.
            state.update(current)
            abandonSession()
            return
        }
        state.update(current)
        guard let text else { return }
        // A message that is not valid protocol JSON is skipped, as the JS client does.
        guard let message = try? RealtimeMessage(parsing: text) else { return }
        switch message {
        case .control(let type, let payload):
            receiveControl(type: type, payload: payload)
        case .response(let id, let status, let data):
            receiveResponse(id: id, status: status, data: data)
        case .push(let action, let body):
            receivePush(action: action, body: body)
        case .error:
            // A fatal server error on this socket: reconnect (with backoff).
            abandonSession()
        case .request:
            break  // Servers do not send requests.
        }
    }

    // MARK: - Control

    private func receiveControl(type: RealtimeControlType, payload: JSONValue) {
        switch type {
        case .handshake:
            receiveHandshake(payload)
        case .shutdown:
            // Shutdown: offline until `setOnline(true)`, as after `goOffline()`. Reads waiting for
            // an answer fail; writes, onDisconnect changes and listens stay and go out again, in
            // order, on the next socket (as Firebase re-sends its outstanding puts).
            perform(state.goOffline())
            failWaitingReads(with: .shutDown(reason: payload.stringValue ?? ""))
        case .reset:
            // Reset: the server asks for a new socket (its payload names a host; Hearth keeps its URL).
            reconnectNow()
        default:
            // `o` pong, `e` error text (informational), `n` end of a transport upgrade: nothing to do.
            break
        }
    }

    private func receiveHandshake(_ payload: JSONValue) {
        guard state.handshakeReceived() else { return }
        if case .string(let id)? = payload["s"] { lastSessionID = id }
        let serverTime: Int64? =
            switch payload["ts"] {
            case .int(let ms)?: ms
            case .double(let ms)?: Int64(exactly: ms.rounded())
            default: nil
            }
        let offset = serverTime.map { $0 &- clock.millisecondsSince1970 } ?? 0
        eventSink.yield(.connected(serverTimeOffset: offset))
        restoreState()
    }

    // MARK: - Answers

    private func receiveResponse(id: Int, status: RealtimeStatus, data: JSONValue) {
        guard let purpose = inflight.removeValue(forKey: id) else { return }
        let ok = status == .ok
        switch purpose {
        case .pending(let sequence):
            guard let request = pending.removeValue(forKey: sequence) else { return }
            if ok {
                if let operation = request.onDisconnect { onDisconnectOperations.record(operation) }
                if let receipt = request.receipt { eventSink.yield(.writeAcknowledged(receipt: receipt)) }
                request.answer(.success(data))
            } else {
                request.answer(.failure(RealtimeError(status: status, data: data)))
            }

        case .listen(let key, let sequence):
            guard var listen = listens[key], listen.sequence == sequence else { return }
            if ok {
                let waiter = listen.waiter
                listen.waiter = nil
                listens[key] = listen
                eventSink.yield(.listenAcknowledged(path: key.path, query: listen.query))
                waiter?.resume(returning: ListenAcknowledgement(warnings: Self.warnings(in: data)))
            } else {
                listens[key] = nil
                if let waiter = listen.waiter {
                    waiter.resume(throwing: RealtimeError(status: status, data: data))
                } else {
                    // Refused when re-sent on a new socket: the listener learns it as a revocation.
                    eventSink.yield(.listenRevoked(path: key.path, query: listen.query))
                }
            }

        case .auth(let token):
            guard !ok else { return }
            if authToken == token { authToken = nil }
            eventSink.yield(.authRevoked(status: status.rawValue, reason: data.stringValue ?? status.rawValue))
            // The token was refused (it expired, or the server's clock disagrees): start over on a
            // new socket with a freshly refreshed one, before the listens that followed this auth
            // are refused for lack of it. A refreshed token refused again means the identity
            // itself is gone: carry on signed out.
            if tokenRefresher != nil, token != refreshedToken { reconnectNow(refreshingToken: true) }

        case .reregistration(let operation):
            if !ok { onDisconnectOperations.removeAll { $0 == operation } }
        }
    }

    /// `{"w":["no_index"]}` → `["no_index"]`.
    static func warnings(in data: JSONValue) -> [String] {
        guard case .array(let items)? = data["w"] else { return [] }
        return items.compactMap(\.stringValue)
    }

    // MARK: - Pushes

    private func receivePush(action: RealtimePushAction, body: JSONValue) {
        // A push without the fields it needs is skipped, as the JS client does.
        switch action {
        case .data:
            guard let push = try? RealtimeDataPush(body: body) else { return }
            eventSink.yield(.overwrite(path: Path(push.path), data: push.data, tag: push.tag))
        case .merge:
            guard let push = try? RealtimeDataPush(body: body), case .object(let members) = push.data else { return }
            eventSink.yield(.merge(path: Path(push.path), data: members, tag: push.tag))
        case .listenRevoked:
            guard let revoked = try? RealtimeListenRevoked(body: body) else { return }
            revokeListen(path: Path(revoked.path), wireQuery: revoked.query)
        case .authRevoked:
            // The server no longer accepts the token: drop it and start over on a fresh socket,
            // which authenticates with a freshly refreshed token (when there is a refresher)
            // before it listens again (unless this was already a refreshed token: no loops).
            let refreshing = tokenRefresher != nil && authToken != refreshedToken
            authToken = nil
            let revoked = RealtimeAuthRevoked(body: body)
            eventSink.yield(.authRevoked(status: revoked.status.rawValue, reason: revoked.reason))
            reconnectNow(refreshingToken: refreshing)
        case .appCheckRevoked, .securityDebug, .rangeMerge, .other:
            // App Check, security debug text, range merges: not used by Hearth.
            break
        }
    }

    /// `c` push: finds the listen the server dropped (by path and query) and forgets it.
    private func revokeListen(path: Path, wireQuery: JSONValue?) {
        let revoked: Query? = wireQuery.flatMap { (try? Query(wireObject: $0)).map(Self.normalized) }
        let candidates = listens.filter { $0.key.path == path }.sorted { $0.value.sequence < $1.value.sequence }
        let match = candidates.first { key, listen in
            if key.tag == nil { return revoked?.isUnfiltered ?? true }
            guard let revoked, let query = listen.query else { return false }
            return Self.normalized(query) == revoked
        }
        guard let match else { return }
        let (key, listen) = (match.key, match.value)
        listens[key] = nil
        if let waiter = listen.waiter {
            waiter.resume(throwing: RealtimeError(status: RealtimeStatus.permissionDenied.rawValue, message: "Permission denied"))
        } else {
            eventSink.yield(.listenRevoked(path: path, query: listen.query))
        }
    }

    /// A query as the wire carries it, so a query and its echo from the server compare equal.
    private static func normalized(_ query: Query) -> Query {
        (try? Query(wireObject: query.wireObject)) ?? query
    }
}
