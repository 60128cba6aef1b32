import HTTPTypes
import HearthCore
import HearthWire
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// Serves the realtime protocol (v5) on WebSocket upgrades (`/.ws?v=5&ns=NAME`).
struct RealtimeController: Sendable {
    let database: DatabaseController
    let logger: Logger
    let connections = RealtimeConnections()
    let drains = EventLoopDrains()
    /// Bytes queued for one client before it is disconnected as too slow.
    var outboxLimit = 8 << 20

    /// The WebSocket configuration: client messages are at most 16,384 characters per frame (a
    /// UTF-8 frame can take 4 bytes per character); WebSocket pings every 30 s find dead peers; a
    /// client that does not answer the close frame within 3 s is dropped (otherwise one such
    /// client held up a SIGTERM shutdown for 15 s).
    static let webSocketConfiguration = WebSocketServerConfiguration(
        maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: .seconds(30)), closeTimeout: .seconds(3))

    func shouldUpgrade(_ request: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let uri = URI(request.path ?? "/")
        let parameters = parseQueryString(uri.query)
        let name = parameters["ns"] ?? database.configuration.defaultNamespace
        guard NamespaceRegistry.isValid(name) else { return .dontUpgrade }
        if let version = parameters["v"], version != "5" {
            logger.notice("realtime client speaks another protocol version", metadata: ["hearth.version": "\(version)"])
        }
        let host = request.authority ?? "\(database.configuration.host):\(database.configuration.port)"
        return .upgrade([:]) { inbound, outbound, _ in
            try await run(inbound: inbound, outbound: outbound, channel: channel, namespace: name, host: host)
        }
    }

    /// Serves one connection. Messages are written straight to `channel` (see ``RealtimeOutbox``);
    /// `outbound` only closes the connection.
    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, namespace name: String, host: String
    ) async throws {
        let namespace: Namespace
        do {
            namespace = try await database.namespace(name)
        } catch {
            let fatal = RealtimeMessage.error("Database unavailable").text
            try? await outbound.write(.text(fatal))
            try? await outbound.close(.unexpectedServerError, reason: "Database unavailable")
            return
        }
        let outbox = RealtimeOutbox(byteLimit: outboxLimit, channel: channel, drains: drains.queue(for: channel.eventLoop)) { [logger] in
            logger.notice("realtime client too slow; disconnecting")
        }
        let session = RealtimeSession(controller: database, namespace: namespace, outbox: outbox, logger: logger)
        let registration = connections.add(outbox)
        defer { connections.remove(registration) }
        outbox.send(RealtimeMessage.handshake(timestamp: wallClockMillis(), host: host, session: RealtimeConnections.sessionID()))
        enum Ended { case reader, writer, deliveries }
        await withTaskGroup(of: Ended.self) { group in
            group.addTask {
                // The outbox closed (shutdown, a client too slow, or the client left): send the
                // close frame after what was queued, and give the client a moment to answer it
                // before reading stops.
                await outbox.waitUntilClosed()
                try? await outbound.close(outbox.isOverflowing ? .policyViolation : .goingAway, reason: outbox.isOverflowing ? "Too slow" : nil)
                try? await Task.sleep(for: .seconds(2))
                return .writer
            }
            group.addTask {
                for await (id, delivery) in session.deliveries { await session.handleDelivery(id, delivery) }
                return .deliveries
            }
            group.addTask {
                var assembler = RealtimeFrameAssembler()
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        if let complete = try assembler.receive(text) { await session.receive(complete) }
                        if outbox.isClosed { break }
                    }
                } catch {
                    logger.debug("realtime connection ended", metadata: ["hearth.error": "\(error)"])
                }
                return .reader
            }
            // Until the client stops sending, or the server stopped writing to it.
            while let ended = await group.next(), ended == .deliveries {}
            group.cancelAll()
        }
        await session.disconnected()
    }
}

/// Open realtime connections, so a graceful shutdown can close them.
final class RealtimeConnections: Sendable {
    private let open = Mutex<(next: Int, outboxes: [Int: RealtimeOutbox])>((0, [:]))

    func add(_ outbox: RealtimeOutbox) -> Int {
        open.withLock { s in
            s.next += 1
            s.outboxes[s.next] = outbox
            return s.next
        }
    }

    func remove(_ id: Int) { _ = open.withLock { $0.outboxes.removeValue(forKey: id) } }

    var count: Int { open.withLock { $0.outboxes.count } }

    func closeAll() {
        for outbox in open.withLock({ Array($0.outboxes.values) }) { outbox.close() }
    }

    /// A random session id for the handshake (clients send it back as `ls`).
    static func sessionID() -> String {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<16).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
    }
}
