import Foundation
import HearthCore
import HearthWire

/// The realtime protocol (v5) over a WebSocket that comes back by itself.
///
/// One actor owns the socket and everything that must survive it: the auth token, the listens,
/// the calls still waiting for an answer and the onDisconnect operations the server holds. Every
/// new socket is brought back to that state right after the server's handshake, in this order:
/// `auth` (when there is a token), each listen (in the order they were made), each onDisconnect
/// operation the server had accepted (they ran, or were dropped, with the old socket), then each
/// unanswered call in the order it was made — at-least-once, as Firebase's clients do.
///
/// ```swift
/// let connection = PersistentConnection(options: options, authToken: idToken)
/// await connection.open()
/// Task { for await event in connection.events { print(event) } }
/// _ = try await connection.listen(path: Path("users"), query: nil, tag: nil, hash: "")
/// try await connection.put(path: Path("users/ada"), data: .string("Ada"), hash: nil)
/// await connection.close()
/// ```
///
/// Call `close()` when done: until then the connection keeps retrying, and its task keeps it alive.
actor PersistentConnection: RealtimeConnection {
    /// Tuning; the defaults suit an app.
    struct Configuration: Sendable {
        /// Extra headers on the WebSocket upgrade request.
        var headers: [String: String] = ["User-Agent": "Firebase/5/Hearth/Swift"]
        /// After this long without sending anything the connection sends the keep-alive frame `0`.
        var keepAliveInterval: Duration = .seconds(45)
        var backoff = RealtimeBackoff()
        /// The most calls (writes, reads, onDisconnect changes) that may wait for an answer at
        /// once; more fail with `RealtimeError.queueFull` rather than growing without bound.
        var maxPendingRequests = 10_000
        /// Whether onDisconnect operations the server accepted are registered again on each new
        /// socket (the server ran or dropped them when the old one closed).
        var reregistersOnDisconnectOperations = true
        /// A read (`get`) made while no socket is up fails as offline after this long without one, as Firebase's
        /// "Client is offline" does (the caller then falls back to the cache).
        var offlineReadTimeout: Duration = .seconds(3)

        init() {}
    }

    /// One socket (where it is in its life: `ConnectionState`).
    struct Session {
        let number: Int
        let outbox: AsyncStream<String>.Continuation
        var assembler = RealtimeFrameAssembler()
        var lastSentAt: Duration
    }

    nonisolated let events: AsyncStream<RealtimeEvent>
    let eventSink: AsyncStream<RealtimeEvent>.Continuation
    let serverURL: URL
    let namespace: String
    let configuration: Configuration
    let transportFactory: any RealtimeTransportFactory
    let clock: any RealtimeClock
    /// Numbers in 0..<1 for the backoff's jitter.
    let random: @Sendable () -> Double

    /// Opened or closed, online, and the socket's progress; changed only by its transitions.
    var state = ConnectionState.idle(online: true)
    /// The task that connects, runs sockets and retries; replaced when the connection restarts.
    var loop: Task<Void, Never>?
    var retryAttempt = 0
    var lastSessionID: String?
    /// The current socket, also one being dropped.
    var session: Session? { state.session }
    var nextSessionNumber = 0

    var authToken: String?
    /// Where the current ID token comes from. Consulted before every request and listen, so that an
    /// operation started right after a sign-in goes out with the new identity: the app's token relay
    /// (an asynchronous task) can lag behind, and a write sent before it caught up was refused.
    let tokenSource: (@Sendable () -> String?)?
    /// Gets a new ID token from the auth server (a forced refresh). Used after the server revoked
    /// or refused the current one (`ac`, or a refused `auth`), before the next socket
    /// authenticates and re-listens, as Firebase's clients do.
    let tokenRefresher: (@Sendable () async -> String?)?
    /// The last token a forced refresh produced; if the server refuses that one too, the
    /// connection carries on signed out instead of refreshing in a loop.
    var refreshedToken: String?
    var nextRequestID = 1
    var nextSequence = 0
    var inflight: [Int: InflightRequest] = [:]
    var pending: [Int: PendingRequest] = [:]
    var listens: [ListenKey: ActiveListen] = [:]
    var onDisconnectOperations: [OnDisconnectOperation] = []

    /// A connection to `serverURL`'s realtime endpoint for database `namespace`.
    /// - Parameters:
    ///   - authToken: the ID token to authenticate with (nil = signed out).
    ///   - transportFactory: opens the sockets; the platform's WebSocket client by default.
    ///   - clock: keep-alives and backoff waits.
    ///   - random: numbers in 0..<1 for the backoff's jitter.
    init(
        serverURL: URL, namespace: String, authToken: String?, tokenSource: (@Sendable () -> String?)? = nil,
        tokenRefresher: (@Sendable () async -> String?)? = nil, configuration: Configuration = Configuration(),
        transportFactory: any RealtimeTransportFactory = makePlatformRealtimeTransportFactory(),
        clock: any RealtimeClock = SystemRealtimeClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.serverURL = serverURL
        self.namespace = namespace
        self.authToken = authToken
        self.tokenSource = tokenSource
        self.tokenRefresher = tokenRefresher
        self.configuration = configuration
        self.transportFactory = transportFactory
        self.clock = clock
        self.random = random
        (events, eventSink) = AsyncStream.makeStream(of: RealtimeEvent.self)
    }

    /// A connection to the database of `options` (its server URL and namespace) over the
    /// platform's WebSocket client.
    init(
        options: HearthOptions, authToken: String?, tokenSource: (@Sendable () -> String?)? = nil,
        tokenRefresher: (@Sendable () async -> String?)? = nil, configuration: Configuration = Configuration()
    ) {
        self.init(
            serverURL: options.serverURL, namespace: options.namespace, authToken: authToken, tokenSource: tokenSource,
            tokenRefresher: tokenRefresher, configuration: configuration)
    }

    // MARK: - Lifecycle

    func open() {
        guard case .idle = state else { return }
        guard RealtimeEndpoint.url(serverURL: serverURL, namespace: namespace, lastSessionID: nil) != nil else {
            shutDown(with: RealtimeError(status: "invalid_url", message: "The server URL must be http(s)://host[:port]"))
            return
        }
        perform(state.open())
    }

    func close() {
        guard !state.isClosed else { return }
        shutDown(with: .closed)
    }

    func setOnline(_ online: Bool) {
        guard !state.isClosed, online != state.isOnline else { return }
        if online {
            retryAttempt = 0
            perform(state.goOnline())
        } else {
            perform(state.goOffline())
        }
    }

    func setAuthToken(_ token: String?) {
        guard token != authToken else { return }
        authToken = token
        guard state.isConnected else { return }
        if let token {
            sendAuth(token)
        } else {
            send(action: .unauth, body: .object([]), as: nil)
        }
    }

    /// Switches to the token source's current token if it changed (the auth message then goes out
    /// before the request that follows).
    private func catchUpWithToken() {
        guard let tokenSource else { return }
        setAuthToken(tokenSource())
    }

    /// Ends for good: the socket closes, every waiting call fails with `error`, `events` finishes.
    func shutDown(with error: RealtimeError) {
        perform(state.close())
        failWaitingCalls(with: error)
        listens.removeAll()
        onDisconnectOperations.removeAll()
        eventSink.finish()
    }

    /// Fails every call waiting for an answer, and the listens not yet acknowledged (which are
    /// dropped). Acknowledged listens stay.
    /// Fails the reads still waiting for an answer; writes, onDisconnect changes and listens stay,
    /// to go out again on the next socket.
    func failWaitingReads(with error: RealtimeError) {
        for (sequence, request) in pending.sorted(by: { $0.key < $1.key }) where request.isRead {
            pending[sequence] = nil
            request.answer(.failure(error))
        }
    }

    func failWaitingCalls(with error: RealtimeError) {
        let failed = pending.sorted { $0.key < $1.key }
        pending.removeAll()
        for (_, request) in failed { request.answer(.failure(error)) }
        for (key, listen) in listens.sorted(by: { $0.value.sequence < $1.value.sequence }) {
            guard let waiter = listen.waiter else { continue }
            listens[key] = nil
            waiter.resume(throwing: error)
        }
    }

    // MARK: - Listens

    func listen(path: Path, query: Query?, tag: Int?, hash: String) async throws -> ListenAcknowledgement {
        guard !state.isClosed else { throw RealtimeError.closed }
        catchUpWithToken()
        let key = ListenKey(path: path, tag: tag)
        return try await withCheckedThrowingContinuation { continuation in
            // Listening again to the same view replaces the old listen (and its waiter).
            listens[key]?.waiter?.resume(throwing: RealtimeError.unlistened)
            let sequence = nextSequence
            nextSequence += 1
            listens[key] = ActiveListen(sequence: sequence, query: query, hash: hash, waiter: continuation)
            if state.isConnected { sendListen(key) }
        }
    }

    func unlisten(path: Path, query: Query?, tag: Int?) {
        let key = ListenKey(path: path, tag: tag)
        guard let listen = listens.removeValue(forKey: key) else { return }
        listen.waiter?.resume(throwing: RealtimeError.unlistened)
        guard state.isConnected else { return }
        // A tagged unlisten names its query (`{}` when it has none); a plain one only the path.
        let request = RealtimeListenRequest(path: path.description, query: tag.map { _ in listen.query?.wireObject ?? .object([]) }, tag: tag)
        send(action: .unlisten, body: request.body, as: nil)
    }

    // MARK: - Requests

    func get(path: Path, query: Query?) async throws -> JSONValue {
        let request = RealtimeGetRequest(path: path.description, query: query?.wireObject ?? .object([]))
        return try await read(action: .get, body: request.body)
    }

    func put(path: Path, data: JSONValue, hash: String?, receipt: Int64?) async throws {
        let (action, body) = Self.wire(.put(path: path, data: data, hash: hash))
        _ = try await request(action: action, body: body, receipt: receipt)
    }

    func merge(path: Path, data: [JSONMember], receipt: Int64?) async throws {
        let (action, body) = Self.wire(.merge(path: path, data: data))
        _ = try await request(action: action, body: body, receipt: receipt)
    }

    /// In line now (sent at once when connected, else on the next socket, in submission order); the answer comes
    /// later. No wait for a round trip per write.
    func submit(_ write: SubmittedWrite, receipt: Int64) -> OneShot<any Error> {
        let answer = OneShot<any Error>()
        let (action, body) = Self.wire(write)
        do {
            try enqueue(PendingRequest(action: action, body: body, receipt: receipt) { result in answer.finish(result.map { _ in () }) })
        } catch {
            answer.fail(error)
        }
        return answer
    }

    private static func wire(_ write: SubmittedWrite) -> (action: RealtimeAction, body: JSONValue) {
        switch write {
        case .put(let path, let data, let hash):
            (.put, RealtimeWriteRequest(path: path.description, data: data, hash: hash).body)
        case .merge(let path, let data):
            (.merge, RealtimeWriteRequest(path: path.description, data: .object(data)).body)
        }
    }

    func onDisconnectPut(path: Path, data: JSONValue) async throws {
        try await onDisconnect(OnDisconnectOperation(kind: .put, path: path, data: data))
    }

    func onDisconnectMerge(path: Path, data: [JSONMember]) async throws {
        try await onDisconnect(OnDisconnectOperation(kind: .merge, path: path, data: .object(data)))
    }

    func onDisconnectCancel(path: Path) async throws {
        try await onDisconnect(OnDisconnectOperation(kind: .cancel, path: path, data: .null))
    }

    private func onDisconnect(_ operation: OnDisconnectOperation) async throws {
        _ = try await request(action: operation.kind.action, body: operation.body, onDisconnect: operation)
    }

    /// Sends a write or an onDisconnect change now (when connected) or when connected; resolves with the answer's
    /// data. Writes stay queued until they are answered. `receipt` is yielded as `.writeAcknowledged` when the server
    /// accepts the request.
    private func request(
        action: RealtimeAction, body: JSONValue, onDisconnect: OnDisconnectOperation? = nil, receipt: Int64? = nil
    ) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try enqueue(PendingRequest(action: action, body: body, onDisconnect: onDisconnect, receipt: receipt) { continuation.resume(with: $0) })
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Puts a request in line: sent now when connected, else on the next socket, and re-sent on every new socket
    /// until answered.
    private func enqueue(_ request: PendingRequest) throws(RealtimeError) {
        place(request, at: try nextRequestSequence())
    }

    private func place(_ request: PendingRequest, at sequence: Int) {
        pending[sequence] = request
        if state.isConnected { sendPending(sequence) }
    }

    private func nextRequestSequence() throws(RealtimeError) -> Int {
        guard !state.isClosed else { throw RealtimeError.closed }
        guard pending.count < configuration.maxPendingRequests else { throw RealtimeError.queueFull }
        catchUpWithToken()
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// A `g`: like a write, but it gives up when its caller's task is cancelled, and fails as offline when no socket
    /// comes up within `offlineReadTimeout`.
    private func read(action: RealtimeAction, body: JSONValue) async throws -> JSONValue {
        let sequence = try nextRequestSequence()
        if !state.isConnected {
            let timeout = configuration.offlineReadTimeout
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.failUnsentRead(sequence, RealtimeError.offline)
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                place(PendingRequest(action: action, body: body, isRead: true) { continuation.resume(with: $0) }, at: sequence)
            }
        } onCancel: {
            Task { await self.abandonRead(sequence) }
        }
    }

    /// Fails a read still waiting for a socket (one sent on a live socket is left to its answer).
    private func failUnsentRead(_ sequence: Int, _ error: RealtimeError) {
        guard !state.isConnected, let request = pending.removeValue(forKey: sequence) else { return }
        request.answer(.failure(error))
    }

    /// The caller of a read went away: its answer, if one comes, is ignored.
    private func abandonRead(_ sequence: Int) {
        pending.removeValue(forKey: sequence)?.answer(.failure(CancellationError()))
    }
}
