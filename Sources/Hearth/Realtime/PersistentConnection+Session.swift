import Foundation
import HearthCore
import HearthWire

// Connecting, retrying, one socket's lifetime, keep-alives and sending.

extension PersistentConnection {
    // MARK: - The retry loop

    /// Does what a transition of `state` asks about the loop and the socket.
    func perform(_ effect: ConnectionState.Effect) {
        switch effect {
        case .none:
            break
        case .startLoop:
            startLoop()
        case .stopLoop(let ending):
            stopLoop(ending: ending)
        case .restartLoop(let ending):
            stopLoop(ending: ending)
            startLoop()
        }
    }

    /// (Re)starts the loop that connects and retries.
    private func startLoop() {
        loop?.cancel()
        // Owned: cancelled by stopLoop/startLoop; it holds the actor until then (see `close()`).
        loop = Task { await self.run() }
    }

    /// Stops connecting and drops the socket `ending` (listens and waiting calls stay).
    private func stopLoop(ending: ConnectionState.EndedSocket?) {
        loop?.cancel()
        loop = nil
        if let ending { finish(ending) }
    }

    /// Drops the current socket and connects again at once (server `r` reset, auth revoked or refused);
    /// `refreshingToken`: the next socket waits for a fresh token first.
    func reconnectNow(refreshingToken: Bool = false) {
        perform(state.reconnect(refreshingToken: refreshingToken))
    }

    private func run() async {
        var wait = false
        while !Task.isCancelled, state.isRunning {
            if wait {
                let delay = configuration.backoff.delay(attempt: retryAttempt, random: random())
                retryAttempt += 1
                do { try await clock.sleep(for: delay) } catch { return }
                guard !Task.isCancelled else { return }
            }
            wait = true
            if let refresher = tokenRefresher, state.takeFreshTokenNeed() {
                let fresh = await refresher()
                guard !Task.isCancelled, state.isRunning else { return }
                refreshedToken = fresh
                authToken = fresh
            }
            guard let url = RealtimeEndpoint.url(serverURL: serverURL, namespace: namespace, lastSessionID: lastSessionID) else { return }
            let socket: any RealtimeTransport
            do {
                socket = try await transportFactory.connect(to: url, headers: configuration.headers)
            } catch {
                continue
            }
            guard !Task.isCancelled, state.isRunning else {
                await socket.close()
                return
            }
            let started = clock.uptime
            await runSession(socket)
            if clock.uptime - started >= configuration.backoff.resetAfter { retryAttempt = 0 }
        }
    }

    // MARK: - One socket

    /// Runs one socket until it closes: a writer draining the outbox in order, a reader feeding
    /// frames to the actor, and the keep-alive timer.
    private func runSession(_ socket: any RealtimeTransport) async {
        let number = nextSessionNumber
        nextSessionNumber += 1
        let (outbox, outboxSink) = AsyncStream.makeStream(of: String.self)
        guard state.socketOpened(Session(number: number, outbox: outboxSink, lastSentAt: clock.uptime)) else {
            await socket.close()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in outbox {
                    do { try await socket.send(frame) } catch { return }
                }
            }
            group.addTask {
                do {
                    for try await frame in socket.incoming { await self.receive(frame, session: number) }
                } catch {
                    // A failed socket ends like a closed one.
                }
            }
            group.addTask { await self.keepAlive(session: number) }
            // The first to end (server closed, write failed, session dropped) ends the socket; closing
            // it first unblocks a reader that does not react to cancellation.
            _ = await group.next()
            await socket.close()
            group.cancelAll()
        }
        endSession(number)
    }

    /// Forgets socket `number` (once): what was in flight on it will be re-sent on the next one.
    func endSession(_ number: Int) {
        guard let ended = state.socketEnded(number) else { return }
        finish(ended)
    }

    private func finish(_ ended: ConnectionState.EndedSocket) {
        ended.session.outbox.finish()
        inflight.removeAll()
        if ended.wasConnected { eventSink.yield(.disconnected) }
    }

    /// Drops the current socket (protocol error, fatal server error); the loop reconnects with backoff.
    func abandonSession() {
        state.abandon()?.outbox.finish()
    }

    private func keepAlive(session number: Int) async {
        while let delay = keepAliveDelay(session: number) {
            do { try await clock.sleep(for: delay) } catch { return }
            guard let current = session, current.number == number else { return }
            if clock.uptime - current.lastSentAt >= configuration.keepAliveInterval { write("0") }
        }
    }

    private func keepAliveDelay(session number: Int) -> Duration? {
        guard let current = state.liveSession, current.number == number else { return nil }
        let quiet = clock.uptime - current.lastSentAt
        return max(Duration.zero, configuration.keepAliveInterval - quiet)
    }

    // MARK: - After the handshake

    /// Brings a new socket back to the connection's state (see the type's documentation).
    func restoreState() {
        if let authToken { sendAuth(authToken) }
        for (key, _) in listens.sorted(by: { $0.value.sequence < $1.value.sequence }) { sendListen(key) }
        if configuration.reregistersOnDisconnectOperations {
            for operation in onDisconnectOperations {
                send(action: operation.kind.action, body: operation.body, as: .reregistration(operation))
            }
        }
        for sequence in pending.keys.sorted() { sendPending(sequence) }
    }

    // MARK: - Sending

    func sendAuth(_ token: String) {
        send(action: .auth, body: RealtimeAuthRequest(credential: token).body, as: .auth(token: token))
    }

    func sendListen(_ key: ListenKey) {
        guard let listen = listens[key] else { return }
        // A tagged listen names its query (`{}` when it has none); a plain one only the path and hash.
        let request = RealtimeListenRequest(
            path: key.path.description, query: key.tag.map { _ in listen.query?.wireObject ?? .object([]) }, tag: key.tag, hash: listen.hash)
        send(action: .listen, body: request.body, as: .listen(key, sequence: listen.sequence))
        // The hash was the cache's when the listen was made; pushes change the data after that, and a server
        // that skips the initial push for a matching hash would leave a value that went back to the cached
        // one unseen. A listen re-sent on a new socket asks for everything.
        listens[key]?.hash = ""
    }

    func sendPending(_ sequence: Int) {
        guard let request = pending[sequence] else { return }
        send(action: request.action, body: request.body, as: .pending(sequence: sequence))
    }

    /// Sends a request on the current socket; `purpose` says what its answer is for (nil: ignored).
    func send(action: RealtimeAction, body: JSONValue, as purpose: InflightRequest?) {
        guard session != nil else { return }
        let id = nextRequestID
        nextRequestID += 1
        if let purpose { inflight[id] = purpose }
        write(RealtimeMessage.request(id: id, action: action, body: body).text)
    }

    /// Queues a message's frames on the current socket, in order.
    func write(_ message: String) {
        guard var current = state.liveSession else { return }
        for frame in RealtimeFraming.frames(for: message) { current.outbox.yield(frame) }
        current.lastSentAt = clock.uptime
        state.update(current)
    }
}
