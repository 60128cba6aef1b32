import HearthWire
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

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
    /// Split messages are assembled up to the signed-in bound; the handler holds a connection that
    /// has not signed in to ``RealtimeController/maxMessageBytes`` itself.
    private var assembler = RealtimeFrameAssembler(maxMessageBytes: RealtimeController.maxSignedInMessageBytes)
    /// Bytes of unfinished messages taken from the server-wide budget.
    private var reserved = 0
    /// A message passed the bound for a connection that has not signed in: reading is paused until
    /// the messages before it (an `auth` among them, perhaps) have been handled.
    private var awaitingSignInCheck = false
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
            loop.execute {
                guard !handler.value.awaitingSignInCheck else { return }
                try? channel.syncOptions?.setOption(.autoRead, value: true)
            }
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
        fragments = nil
        hold(0)
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
                guard holdPartial(context: context) else { return }
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
                if isText { received(joined, context: context) } else { _ = holdPartial(context: context) }
            } else {
                fragments = (joined, isText)
                guard holdPartial(context: context) else { return }
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
            let complete = try assembler.receive(text)
            guard holdPartial(context: context, message: complete?.utf8.count ?? 0), let complete else { return }
            // Larger than a connection that has not signed in may send: the session handles it
            // only if the connection has signed in by then (checked again in its turn).
            connection.work.add((connection, .message(complete)))
            if connection.shouldPauseReading() { try? context.channel.syncOptions?.setOption(.autoRead, value: false) }
        } catch {
            // A malformed or oversized split message ends the connection.
            controller.logger.debug("realtime connection ended", metadata: ["hearth.error": "\(error)"])
            protocolError(context: context)
        }
    }

    /// Takes what the unfinished message (fragments and split chunks) now holds from the
    /// server-wide budget, and bounds it (or the `message` just completed) for a connection that
    /// has not signed in. False when the connection is closing.
    private func holdPartial(context: ChannelHandlerContext, message: Int = 0) -> Bool {
        guard !closing else {
            fragments = nil
            hold(0)
            return false
        }
        let held = assembler.bufferedBytes + (fragments?.bytes.readableBytes ?? 0)
        guard hold(held) else {
            controller.logger.notice("realtime partial messages over the server's budget; closing a connection")
            close(context: context, code: WebSocketErrorCode(codeNumber: 1013), reason: "Server busy")
            return false
        }
        guard max(held, message) > RealtimeController.maxMessageBytes, let connection, !connection.signedIn.load(ordering: .relaxed) else {
            return true
        }
        if !awaitingSignInCheck {
            // An `auth` may be waiting ahead of this message: stop reading, and decide once the
            // messages before it have been handled.
            awaitingSignInCheck = true
            try? context.channel.syncOptions?.setOption(.autoRead, value: false)
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let contextBox = NIOLoopBound(context, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            connection.work.add((connection, .signInCheck({ signedIn in
                loop.execute { handler.value.signInChecked(signedIn, context: contextBox.value) }
            })))
        } else if held > RealtimeController.maxMessageBytes + Self.readSlack {
            // Paused reading still delivers what was already read; more than that is a bug or a trick.
            close(context: context, code: .messageTooLarge)
            return false
        }
        return true
    }

    /// What may still arrive after reading paused: the rest of the last read.
    static let readSlack = 256 << 10

    /// The answer to a sign-in check: go on reading, or close a connection that has not signed in
    /// and sends more than it may.
    private func signInChecked(_ signedIn: Bool, context: ChannelHandlerContext) {
        awaitingSignInCheck = false
        guard let connection, !closing else { return }
        if signedIn {
            if !connection.isReadingPaused { try? context.channel.syncOptions?.setOption(.autoRead, value: true) }
        } else {
            close(context: context, code: .messageTooLarge)
        }
    }

    /// Sets this connection's share of the budget to `bytes`; false when the budget has no room.
    @discardableResult
    private func hold(_ bytes: Int) -> Bool {
        if bytes > reserved {
            guard controller.partialMessages.reserve(bytes - reserved) else { return false }
        } else if bytes < reserved {
            controller.partialMessages.release(reserved - bytes)
        }
        reserved = bytes
        return true
    }

    /// Every ping interval: a peer that did not answer the last ping is gone.
    private func ping(context: ChannelHandlerContext) {
        guard !closing else { return }
        if awaitingPong {
            controller.logger.notice("realtime client did not answer a ping; closing it as dead")
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
        // Nothing more is read: what was held of an unfinished message goes now.
        fragments = nil
        assembler = RealtimeFrameAssembler(maxMessageBytes: RealtimeController.maxSignedInMessageBytes)
        hold(0)
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
