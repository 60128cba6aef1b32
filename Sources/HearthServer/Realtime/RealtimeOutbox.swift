import HearthWire
import NIOCore
import NIOWebSocket
import Synchronization

/// A realtime connection's outgoing messages, bounded by a byte budget so a slow client cannot
/// make the server hold more than that for it.
///
/// On a connection, ``send(_:)`` frames the message (``WebSocketTextFrame``) into the
/// connection's pending bytes, and the first message after a drain asks the event loop's
/// ``EventLoopDrainQueue`` for the next drain, which hands everything pending to the socket as one
/// buffer and flushes once. Sending never waits for a task to wake up, so one change pushed to
/// many connections costs a few event-loop jobs and one socket write per connection, and the
/// event loops never touch the buffer the hub shares between listeners. Split messages' frames
/// stay together because they are appended together. Without a channel (tests), messages go to
/// ``messages`` and the reader calls ``take(_:)``.
final class RealtimeOutbox: Sendable {
    private struct State {
        /// Framed messages not yet handed to the channel (with a channel), or the bytes of
        /// messages not yet taken from ``messages``.
        var pending = ByteBuffer()
        var queuedBytes = 0
        /// The largest message among the queued bytes: it does not count against the budget.
        var largestQueued = 0
        var drainScheduled = false
        var closed = false
        var overflowing = false
        /// The connection sent its close frame: nothing more may be written.
        var discarding = false

        /// Marks the outbox closed; true the first time.
        mutating func markClosed() -> Bool {
            defer { closed = true }
            return !closed
        }
    }

    /// The most bytes queued for one connection (here and in the channel's write buffer), besides its
    /// largest message, before it is closed as too slow.
    let byteLimit: Int
    private let state = Mutex(State())
    private let channel: (any Channel)?
    private let drains: EventLoopDrainQueue?
    /// The WebSocket frame encoder's context: finished frames are written below the encoder.
    private let encoder: NIOLoopBoundBox<ChannelHandlerContext?>?
    private let stream: AsyncStream<ByteBuffer>.Continuation?
    /// Messages in order when the outbox has no channel; empty otherwise.
    let messages: AsyncStream<ByteBuffer>
    /// Called once, when the outbox closes; the argument says whether the client was too slow.
    private let onClose: @Sendable (_ tooSlow: Bool) -> Void

    /// An outbox writing to a WebSocket channel (one whose pipeline has a `WebSocketFrameEncoder`).
    init(byteLimit: Int, channel: any Channel, drains: EventLoopDrainQueue, onClose: @escaping @Sendable (_ tooSlow: Bool) -> Void) {
        self.byteLimit = byteLimit
        self.onClose = onClose
        self.channel = channel
        self.drains = drains
        encoder = .makeEmptyBox(valueType: ChannelHandlerContext.self, eventLoop: channel.eventLoop)
        stream = nil
        messages = AsyncStream { $0.finish() }
    }

    /// An outbox whose messages are read from ``messages``.
    init(byteLimit: Int, onClose: @escaping @Sendable (_ tooSlow: Bool) -> Void) {
        self.byteLimit = byteLimit
        self.onClose = onClose
        channel = nil
        drains = nil
        encoder = nil
        let (messages, stream) = AsyncStream<ByteBuffer>.makeStream()
        self.messages = messages
        self.stream = stream
    }

    /// Queues one protocol message (split into frames when long).
    func send(_ message: ByteBuffer) {
        enum Next { case nothing, overflow, yield, drain }
        let next = state.withLock { s -> Next in
            guard !s.closed else { return .nothing }
            // The largest queued message does not count, so one message larger than the budget (a big value read or
            // pushed) goes through: the client is slow only when the rest piles up behind it.
            s.queuedBytes += message.readableBytes
            s.largestQueued = max(s.largestQueued, message.readableBytes)
            if s.queuedBytes - s.largestQueued > byteLimit {
                s.overflowing = true
                return s.markClosed() ? .overflow : .nothing
            }
            guard channel != nil else { return .yield }
            if message.readableBytes <= RealtimeFraming.maxFrameCharacters {
                WebSocketTextFrame.append(message, to: &s.pending)
            } else {
                for piece in Self.frames(message) { WebSocketTextFrame.append(piece, to: &s.pending) }
            }
            if s.drainScheduled { return .nothing }
            s.drainScheduled = true
            return .drain
        }
        switch next {
        case .nothing:
            break
        case .overflow:
            closed(tooSlow: true)
        case .yield:
            stream?.yield(message)
        case .drain:
            drains?.schedule(self)
        }
    }

    func send(_ message: RealtimeMessage) { send(ByteBuffer(string: message.text)) }

    func send(_ bytes: [UInt8]) { send(ByteBuffer(bytes: bytes)) }

    /// On the channel's event loop: hands what is pending to the socket and flushes.
    func drain() {
        guard let channel, let encoder else { return }
        let batch = state.withLock { s -> ByteBuffer? in
            s.drainScheduled = false
            let batch = s.pending
            s.pending = ByteBuffer()
            (s.queuedBytes, s.largestQueued) = (0, 0)
            return s.overflowing || s.discarding || batch.readableBytes == 0 ? nil : batch
        }
        guard let batch else { return }
        if encoder.value == nil {
            encoder.value = try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        }
        // Without an encoder the WebSocket pipeline is gone: the channel is closing.
        guard let context = encoder.value else { return }
        let written = batch.readableBytes
        context.writeAndFlush(NIOAny(batch), promise: nil)
        // What the socket has not taken yet counts against the budget too, beyond the batch just written (which may be
        // one message larger than the budget).
        if !channel.isWritable, let buffered = try? channel.syncOptions?.getOption(.bufferedWritableBytes), buffered > byteLimit + written {
            abandon()
        }
    }

    /// The reader of ``messages`` took a message; false when it must not be sent (the client was
    /// cut off as too slow).
    func take(_ message: ByteBuffer) -> Bool {
        state.withLock { s in
            s.queuedBytes -= message.readableBytes
            if s.queuedBytes == 0 { s.largestQueued = 0 }
            return !s.overflowing
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Closed because the client fell too far behind (what is still queued is not sent).
    var isOverflowing: Bool { state.withLock { $0.overflowing } }

    /// Closes after what is queued has been written.
    func close() {
        if state.withLock({ $0.markClosed() }) { closed(tooSlow: false) }
    }

    /// Closes at once and drops what is queued: the connection already sent its close frame.
    func discard() {
        let first = state.withLock { s -> Bool in
            s.discarding = true
            s.pending = ByteBuffer()
            return s.markClosed()
        }
        if first { closed(tooSlow: false) }
    }

    /// Closes at once, dropping what is queued (the client is too slow).
    func abandon() {
        let first = state.withLock { s -> Bool in
            s.overflowing = true
            return s.markClosed()
        }
        if first { closed(tooSlow: true) }
    }

    private func closed(tooSlow: Bool) {
        stream?.finish()
        onClose(tooSlow)
    }

    /// The frames for one message: itself when short (a UTF-8 message of at most 16,384 bytes has
    /// at most as many characters), else a count frame and the chunks.
    static func frames(_ message: ByteBuffer) -> [ByteBuffer] {
        guard message.readableBytes > RealtimeFraming.maxFrameCharacters else { return [message] }
        let text = String(buffer: message)
        let frames = RealtimeFraming.frames(for: text)
        return frames.map { ByteBuffer(string: $0) }
    }
}
