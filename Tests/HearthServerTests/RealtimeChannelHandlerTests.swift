import HearthDatabase
@testable import HearthServer
import HearthStore
import HearthTestSupport
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

/// The realtime handler's WebSocket housekeeping on a test channel whose clock the test moves:
/// pings for dead peers, and the closing handshake's timeout. (Wire details such as fragments and
/// the close answer are covered over real sockets in compat/test_realtime_process.py.)
@Suite("Realtime channel handler")
struct RealtimeChannelHandlerTests {
    /// A connected test channel with the handler on a fresh in-memory database.
    func connected(namespace: String = "t") async throws -> (NIOAsyncTestingChannel, NIOAsyncTestingEventLoop, RealtimeController) {
        let registry = NamespaceRegistry(factory: MemoryStoreFactory(), clock: { wallClockMillis() }, initialRules: .initial(dev: true), defaultNamespace: "t")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let database = DatabaseController(
            configuration: ServerConfiguration(port: 0, adminToken: "owner"), registry: registry, logger: logger, auth: nil)
        let controller = RealtimeController(database: database, logger: logger)
        let loop = NIOAsyncTestingEventLoop()
        let channel = NIOAsyncTestingChannel(loop: loop)
        try await loop.submit {
            try channel.pipeline.syncOperations.addHandler(RealtimeChannelHandler(controller: controller, namespace: namespace, host: "test"))
        }.get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        return (channel, loop, controller)
    }

    func nextFrame(_ channel: NIOAsyncTestingChannel) async throws -> WebSocketFrame? {
        try await channel.readOutbound(as: WebSocketFrame.self)
    }

    @Test("a peer is pinged every 30 s and dropped when it did not answer the previous ping")
    func deadPeers() async throws {
        let (channel, loop, _) = try await connected()
        await loop.advanceTime(by: .seconds(29))
        #expect(try await nextFrame(channel) == nil)
        await loop.advanceTime(by: .seconds(1))
        #expect(try await nextFrame(channel)?.opcode == .ping)
        try await channel.writeInbound(WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer()))
        await loop.advanceTime(by: .seconds(30))
        #expect(try await nextFrame(channel)?.opcode == .ping)
        #expect(channel.isActive)
        // No answer to that one: the next tick closes the connection.
        await loop.advanceTime(by: .seconds(30))
        #expect(!channel.isActive)
    }

    @Test("a client ping is answered with its data")
    func pingAnswered() async throws {
        let (channel, _, _) = try await connected()
        try await channel.writeInbound(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "hi")))
        let pong = try #require(try await nextFrame(channel))
        #expect(pong.opcode == .pong && String(buffer: pong.data) == "hi")
        _ = try? await channel.finish()
    }

    @Test("at shutdown the server sends 1001 and closes the socket itself if the client never answers")
    func closeTimeout() async throws {
        let (channel, loop, controller) = try await connected()
        // The session starts on its own task; wait until it counts as open.
        for _ in 0..<500 where controller.connections.count == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(controller.connections.count == 1)
        controller.connections.closeAll()
        var close: WebSocketFrame?
        for _ in 0..<500 where close == nil {
            await loop.run()
            close = try await nextFrame(channel)
            if close == nil { try await Task.sleep(for: .milliseconds(2)) }
        }
        let frame = try #require(close)
        #expect(frame.opcode == .connectionClose)
        var data = frame.data
        #expect(data.readWebSocketErrorCode() == .goingAway)
        await loop.advanceTime(by: .seconds(2))
        #expect(channel.isActive)
        await loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        // The socket closed, so the session ends and the connection is forgotten.
        for _ in 0..<500 where controller.connections.count > 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(controller.connections.count == 0)
    }

    @Test("the server's quiesce event (shutdown) closes with 1001, and a connection added after closeAll is closed at once")
    func quiesceAndLateConnections() async throws {
        let (channel, loop, controller) = try await connected()
        for _ in 0..<500 where controller.connections.count == 0 { try await Task.sleep(for: .milliseconds(2)) }
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        var close: WebSocketFrame?
        for _ in 0..<500 where close == nil {
            await loop.run()
            close = try await nextFrame(channel)
            if close == nil { try await Task.sleep(for: .milliseconds(2)) }
        }
        var data = try #require(close).data
        #expect(data.readWebSocketErrorCode() == .goingAway)

        controller.connections.closeAll()
        let late = RealtimeOutbox(byteLimit: 1 << 20) { _ in }
        _ = controller.connections.add(late)
        #expect(late.isClosed)
    }

    @Test("a namespace that does not exist gets Firebase's shutdown message (clients stop reconnecting), then the close")
    func unknownNamespace() async throws {
        let (_, _, controller) = try await connected()
        let outbox = RealtimeOutbox(byteLimit: 1 << 20) { _ in }
        let connection = RealtimeConnection(controller: controller, namespace: "nope", host: "test", outbox: outbox, resumeReading: {})
        await controller.open(connection)
        // The first message (a handshake would mean the namespace was opened), then the stream ends.
        var messages = outbox.messages.makeAsyncIterator()
        let first = await messages.next().map { String(buffer: $0) }
        #expect(first == #"{"t":"c","d":{"t":"s","d":"Firebase error. Please ensure that you spelled the name of your Firebase correctly"}}"#)
        #expect(outbox.isClosed)
        if outbox.isClosed { #expect(await messages.next() == nil) }
    }

    @Test("close codes a client may send", arguments: [
        (UInt16(1000), true), (1001, true), (1003, true), (1004, false), (1005, false), (1006, false), (1007, true),
        (1011, true), (1015, false), (2999, false), (3000, true), (4999, true), (5000, false), (999, false),
    ])
    func closeCodes(code: UInt16, valid: Bool) {
        #expect(RealtimeChannelHandler.isValidCloseCode(code) == valid)
    }
}
