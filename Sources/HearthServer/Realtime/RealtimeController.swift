import HearthCore
import HearthDatabase
import HearthWire
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// Serves the realtime protocol (v5) on WebSocket upgrades (`/.ws?v=5&ns=NAME`).
///
/// A connection is a NIO channel handler (``RealtimeChannelHandler``) plus the session behind
/// it; no task waits on an idle connection. Incoming messages are handled by a task that exists
/// only while there are messages (``SerialWork``), and pushes are written on the event loop
/// (``RealtimeOutbox``).
struct RealtimeController: Sendable {
    let database: DatabaseController
    let logger: Logger
    let connections = RealtimeConnections()
    let drains = EventLoopDrains()
    /// Bytes queued for one client before it is disconnected as too slow.
    var outboxLimit = 8 << 20
    /// What all connections together may hold of messages still arriving.
    var partialMessages = PartialMessageBudget(limit: ServerConfiguration.defaultRealtimePartialBytes)
    /// Largest client message (after joining WebSocket fragments and realtime split messages)
    /// from a connection that has not signed in, and largest WebSocket frame.
    static let maxMessageBytes = 1 << 20
    /// Largest client message once the connection signed in (`auth`/`gauth` accepted): the
    /// largest write Firebase takes from its SDKs.
    static let maxSignedInMessageBytes = 16 << 20
    /// Client messages waiting to be handled before the server stops reading from the socket.
    static let inboundHighWater = 64
    /// WebSocket pings find dead peers: one every this often, and a peer that has not answered
    /// the previous one by then is dropped.
    static let pingInterval = TimeAmount.seconds(30)
    /// How long a client gets to answer the server's close frame.
    static let closeTimeout = TimeAmount.seconds(3)

    /// The namespace an upgrade request asks for, or nil to refuse the upgrade.
    func namespace(for head: HTTPRequestHead) -> String? {
        let name = parseQueryString(URI(head.uri).query)["ns"] ?? database.configuration.defaultNamespace
        return NamespaceRegistry.isValid(name) ? name : nil
    }

    /// Whether to upgrade (logs a client that asks for another protocol version, once).
    func shouldUpgrade(_ head: HTTPRequestHead) -> Bool {
        if let version = parseQueryString(URI(head.uri).query)["v"], version != "5" {
            logger.notice("realtime client speaks another protocol version", metadata: ["hearth.version": "\(version)"])
        }
        return namespace(for: head) != nil
    }

    /// On the event loop, right after the upgrade: serves the realtime protocol on `channel`.
    func attach(to channel: any Channel, head: HTTPRequestHead, namespace name: String) throws {
        let host = head.headers.first(name: "host") ?? "\(database.configuration.host):\(database.configuration.port)"
        // Client messages are small; start the socket's read buffer small as well.
        try channel.syncOptions?.setOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 1 << 16))
        let handler = RealtimeChannelHandler(controller: self, namespace: name, host: host)
        // The connection made while the handler is added learns its client address (for the rate limits).
        AttachingClient.set(AttachingClient.address(of: channel, forwardedFor: head.headers["X-Forwarded-For"], proxies: database.configuration.trustedProxies))
        defer { AttachingClient.set(nil) }
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    /// Starts the session for a connection that just opened (from its first work item).
    ///
    /// The connection holds its namespace until it closes, and is closed if the namespace is
    /// deleted. For a namespace that does not exist the server sends the shutdown message
    /// (`{"t":"c","d":{"t":"s","d":<reason>}}`, after which Firebase's clients stop reconnecting)
    /// with Firebase's reason text, and closes.
    func open(_ connection: RealtimeConnection) async {
        let outbox = connection.outbox
        do throws(NamespaceError) {
            let lease = try await database.registry.lease(connection.namespaceName, onDelete: { outbox.close() })
            let session = RealtimeSession(
                database: database.service, authenticator: database.authenticator, namespace: lease.namespace, outbox: connection.outbox, logger: logger,
                signedIn: { [weak connection] in connection?.signedIn.store($0, ordering: .relaxed) })
            await session.useLimits(RealtimeLimits(database, address: connection.clientAddress))
            connection.started(session, registration: connections.add(connection.outbox), lease: lease)
            connection.outbox.send(
                RealtimeMessage.handshake(timestamp: database.service.clock(), host: connection.host, session: RealtimeConnections.sessionID()))
        } catch where error.code == .notFound {
            connection.outbox.send(RealtimeMessage.control(type: .shutdown, payload: .string(error.message)))
            connection.outbox.close()
        } catch {
            connection.outbox.send(RealtimeMessage.error(error.code == .busy ? error.message : "Database unavailable"))
            connection.outbox.close()
        }
    }

    /// The socket closed: runs the session's onDisconnect queue, then forgets the connection and
    /// lets go of its namespace.
    func closed(_ connection: RealtimeConnection) async {
        guard let (session, registration, lease) = connection.ended() else { return }
        await session.disconnected()
        connections.remove(registration)
        database.registry.release(lease)
    }
}

/// What a realtime connection's work task handles, in order.
enum RealtimeInput: Sendable {
    case open
    /// A client message; one larger than ``RealtimeController/maxMessageBytes`` is handled only if
    /// the connection has signed in by the time its turn comes.
    case message(String)
    /// Called with whether the connection has signed in, once every message before it was handled
    /// (so an `auth` sent just before a large message counts).
    case signInCheck(@Sendable (Bool) -> Void)
    case closed
}

/// A realtime connection's state shared between its channel handler (on the event loop) and its
/// work task.
final class RealtimeConnection: Sendable {
    let controller: RealtimeController
    let namespaceName: String
    let host: String
    let outbox: RealtimeOutbox
    let work: SerialWork<(RealtimeConnection, RealtimeInput)>
    /// Turns reading from the socket back on (set by the handler; called off the event loop).
    let resumeReading: @Sendable () -> Void
    private let state = Mutex<(session: RealtimeSession?, registration: Int, lease: NamespaceLease?, readingPaused: Bool)>((nil, 0, nil, false))
    /// Whether the session's credential was accepted (set by the session, read on the event loop).
    let signedIn = Atomic(false)
    /// The client's address, for the rate limits (set while the connection is made: see ``AttachingClient``).
    let clientAddress = AttachingClient.current

    init(
        controller: RealtimeController, namespace: String, host: String, outbox: RealtimeOutbox,
        resumeReading: @escaping @Sendable () -> Void
    ) {
        self.controller = controller
        namespaceName = namespace
        self.host = host
        self.outbox = outbox
        self.resumeReading = resumeReading
        // Past the high-water mark reading pauses, so the limit is only a backstop.
        work = SerialWork(limit: 1 << 16) { connection, input in await connection.handle(input) }
    }

    func started(_ session: RealtimeSession, registration: Int, lease: NamespaceLease) {
        state.withLock { $0 = (session, registration, lease, $0.readingPaused) }
    }

    /// The session, its registration and its namespace lease, once (nil if it never started or already ended).
    func ended() -> (RealtimeSession, Int, NamespaceLease)? {
        state.withLock { s in
            guard let session = s.session, let lease = s.lease else { return nil }
            s.session = nil
            s.lease = nil
            return (session, s.registration, lease)
        }
    }

    /// Whether reading is paused because too many messages wait.
    var isReadingPaused: Bool { state.withLock { $0.readingPaused } }

    /// On the event loop: whether reading should pause now (and remember that it did).
    func shouldPauseReading() -> Bool {
        state.withLock { s in
            guard !s.readingPaused, work.waiting >= RealtimeController.inboundHighWater else { return false }
            s.readingPaused = true
            return true
        }
    }

    private func handle(_ input: RealtimeInput) async {
        switch input {
        case .open:
            await controller.open(self)
        case .signInCheck(let answer):
            answer(signedIn.load(ordering: .relaxed))
        case .message(let text):
            if let session = state.withLock({ $0.session }), !outbox.isClosed,
                text.utf8.count <= RealtimeController.maxMessageBytes || signedIn.load(ordering: .relaxed)
            {
                await session.receive(text)
            }
            let resume = state.withLock { s -> Bool in
                guard s.readingPaused, work.waiting < RealtimeController.inboundHighWater / 4 else { return false }
                s.readingPaused = false
                return true
            }
            if resume { resumeReading() }
        case .closed:
            await controller.closed(self)
        }
    }
}

/// Open realtime connections, so a graceful shutdown can close them and wait for them.
final class RealtimeConnections: Sendable {
    private let open = Mutex<(next: Int, outboxes: [Int: RealtimeOutbox], closing: Bool)>((0, [:], false))

    /// Registers a connection; after ``closeAll()`` it is closed at once (a client that
    /// reconnects during shutdown gets its close frame too).
    func add(_ outbox: RealtimeOutbox) -> Int {
        let (id, closing) = open.withLock { s in
            s.next += 1
            s.outboxes[s.next] = outbox
            return (s.next, s.closing)
        }
        if closing { outbox.close() }
        return id
    }

    func remove(_ id: Int) { _ = open.withLock { $0.outboxes.removeValue(forKey: id) } }

    var count: Int { open.withLock { $0.outboxes.count } }

    /// Closes every connection, and from now on every new one.
    func closeAll() {
        let all = open.withLock { s in
            s.closing = true
            return Array(s.outboxes.values)
        }
        for outbox in all { outbox.close() }
    }

    /// Waits until every connection has ended (its onDisconnect writes done), at most `timeout`.
    func waitUntilEmpty(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A random session id for the handshake (clients send it back as `ls`).
    static func sessionID() -> String {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<16).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
    }
}
