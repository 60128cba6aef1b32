import HearthWire
import Logging
import NIOCore
import NIOWebSocket

/// The WebSocket side of a realtime connection, on its event loop: joins fragments into messages
/// and realtime split messages into whole ones, answers pings, pings the client to find dead
/// peers, and runs the closing handshake in both directions.
final class RealtimeChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let controller: RealtimeController
    private let namespace: String
    private let host: String
    private var connection: RealtimeConnection?
    /// A text message whose WebSocket fragments are still arriving.
    private var fragments: ByteBuffer?
    private var assembler = RealtimeFrameAssembler()
    private var pinger: RepeatedTask?
    private var awaitingPong = false
    /// The server sent its close frame.
    private var closing = false

    init(controller: RealtimeController, namespace: String, host: String) {
        self.controller = controller
        self.namespace = namespace
        self.host = host
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        let logger = controller.logger
        let outbox = RealtimeOutbox(
            byteLimit: controller.outboxLimit, channel: channel, drains: controller.drains.queue(for: loop)
        ) { tooSlow in
            if tooSlow { logger.notice("realtime client too slow; disconnecting") }
            loop.execute { handler.value.serverClosed(context: contextBox.value, tooSlow: tooSlow) }
        }
        let connection = RealtimeConnection(controller: controller, namespace: namespace, host: host, outbox: outbox) {
            loop.execute { try? channel.syncOptions?.setOption(.autoRead, value: true) }
        }
        self.connection = connection
        connection.work.add((connection, .open))
        pinger = loop.scheduleRepeatedTask(initialDelay: RealtimeController.pingInterval, delay: RealtimeController.pingInterval) { _ in
            handler.value.ping(context: contextBox.value)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ended()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side (the server allows half-closed HTTP connections): nothing
        // more can arrive, so the connection ends.
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The socket closed (or the handler left the pipeline): the session ends once.
    private func ended() {
        pinger?.cancel()
        pinger = nil
        guard let connection else { return }
        self.connection = nil
        connection.outbox.close()
        connection.work.add((connection, .closed))
        connection.work.finish()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where frame.fin && fragments == nil:
            received(frame.unmaskedData, context: context)
        case .text:
            guard fragments == nil else { return protocolError(context: context) }
            fragments = frame.unmaskedData
        case .continuation:
            guard var joined = fragments else { return protocolError(context: context) }
            var piece = frame.unmaskedData
            guard joined.readableBytes + piece.readableBytes <= RealtimeController.maxMessageBytes else {
                return close(context: context, code: .messageTooLarge)
            }
            joined.writeBuffer(&piece)
            if frame.fin {
                fragments = nil
                received(joined, context: context)
            } else {
                fragments = joined
            }
        case .ping:
            guard !closing else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            awaitingPong = false
        case .connectionClose:
            if closing {
                context.close(promise: nil)
            } else {
                // Answer with the client's status code, then close.
                var data = frame.unmaskedData
                let code = data.readSlice(length: 2) ?? ByteBuffer()
                closing = true
                let answer = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            // Binary frames carry nothing in this protocol.
            break
        }
    }

    private func received(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard let connection, !closing else { return }
        let text = String(buffer: bytes)
        do {
            guard let complete = try assembler.receive(text) else { return }
            connection.work.add((connection, .message(complete)))
            if connection.shouldPauseReading() { try? context.channel.syncOptions?.setOption(.autoRead, value: false) }
        } catch {
            // A malformed or oversized split message ends the connection.
            controller.logger.debug("realtime connection ended", metadata: ["hearth.error": "\(error)"])
            protocolError(context: context)
        }
    }

    /// Every ping interval: a peer that did not answer the last ping is gone.
    private func ping(context: ChannelHandlerContext) {
        guard !closing else { return }
        if awaitingPong {
            context.close(promise: nil)
            return
        }
        awaitingPong = true
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
    }

    /// The outbox closed (shutdown, the session ended, or the client is too slow): after what was
    /// queued (unless too slow), send a close frame and give the client a moment to answer it.
    private func serverClosed(context: ChannelHandlerContext, tooSlow: Bool) {
        // After `ended()` the connection is gone and the context may be too.
        guard let connection, !closing, context.channel.isActive else { return }
        if !tooSlow { connection.outbox.drain() }
        close(context: context, code: tooSlow ? .policyViolation : .goingAway, reason: tooSlow ? "Too slow" : nil)
    }

    private func protocolError(context: ChannelHandlerContext) {
        close(context: context, code: .protocolError)
    }

    /// Sends a close frame and closes the socket once the client answers or the timeout passes.
    private func close(context: ChannelHandlerContext, code: WebSocketErrorCode, reason: String? = nil) {
        guard !closing else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: RealtimeController.closeTimeout) { channel.close(promise: nil) }
    }
}
