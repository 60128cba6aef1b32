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
    /// A message whose WebSocket fragments are still arriving (binary ones are dropped at the end).
    private var fragments: (bytes: ByteBuffer, isText: Bool)?
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
        // The server is shutting down: close as the session would, with 1001 after what is queued.
        if event is ChannelShouldQuiesceEvent {
            connection?.outbox.close()
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
        case .text, .binary:
            // A new message may not start inside a fragmented one (RFC 6455 §5.4).
            guard fragments == nil else { return protocolError(context: context) }
            if !frame.fin {
                fragments = (frame.unmaskedData, frame.opcode == .text)
            } else if frame.opcode == .text {
                received(frame.unmaskedData, context: context)
            }  // Binary messages carry nothing in this protocol.
        case .continuation:
            guard let (started, isText) = fragments else { return protocolError(context: context) }
            var joined = started
            var piece = frame.unmaskedData
            guard joined.readableBytes + piece.readableBytes <= RealtimeController.maxMessageBytes else {
                return close(context: context, code: .messageTooLarge)
            }
            joined.writeBuffer(&piece)
            if frame.fin {
                fragments = nil
                if isText { received(joined, context: context) }
            } else {
                fragments = (joined, isText)
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
                return
            }
            // Answer with the client's status code (none if it gave none), then close.
            var data = frame.unmaskedData
            switch data.readableBytes {
            case 0:
                close(context: context, code: nil, answering: true)
            case 1:
                close(context: context, code: .protocolError, answering: true)
            default:
                guard let code = data.readInteger(as: UInt16.self), Self.isValidCloseCode(code) else {
                    return close(context: context, code: .protocolError, answering: true)
                }
                close(context: context, code: WebSocketErrorCode(codeNumber: Int(code)), answering: true)
            }
        default:
            // Reserved opcodes: the connection fails.
            protocolError(context: context)
        }
    }

    /// Close codes a client may send (RFC 6455 §7.4): not the reserved ones nor those only for
    /// reporting (1005, 1006, 1015).
    static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
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
            close(context: context, code: .goingAway, reason: "Ping timeout")
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

    /// Sends a close frame (`code` nil: an empty one) and closes the socket once the client
    /// answers, once the frame is written when it is the answer (`answering`), or when the
    /// timeout passes. Nothing is sent after it:
    /// what the outbox still holds is dropped.
    private func close(context: ChannelHandlerContext, code: WebSocketErrorCode?, reason: String? = nil, answering: Bool = false) {
        guard !closing else { return }
        closing = true
        connection?.outbox.discard()
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        if let code { data.write(webSocketErrorCode: code) }
        if let reason { data.writeString(reason) }
        let written = context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
        let channel = context.channel
        if answering {
            written.whenComplete { _ in channel.close(promise: nil) }
        }
        context.eventLoop.scheduleTask(in: RealtimeController.closeTimeout) { channel.close(promise: nil) }
    }
}
