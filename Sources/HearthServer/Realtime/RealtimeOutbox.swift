import HearthWire
import NIOCore
import Synchronization

/// A realtime connection's outgoing messages: one writer keeps split messages' frames together,
/// and a byte budget bounds what a slow client can make the server hold.
final class RealtimeOutbox: Sendable {
    private struct State {
        var queuedBytes = 0
        var closed = false
        var overflowing = false
    }

    /// The most bytes queued for one connection before it is closed as too slow.
    let byteLimit: Int
    private let state = Mutex(State())
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    let messages: AsyncStream<ByteBuffer>
    /// Called once when the budget is exceeded or the outbox is closed.
    private let onOverflow: @Sendable () -> Void

    init(byteLimit: Int, onOverflow: @escaping @Sendable () -> Void) {
        self.byteLimit = byteLimit
        self.onOverflow = onOverflow
        (messages, continuation) = AsyncStream.makeStream()
    }

    /// Queues one protocol message (split into frames by the writer if long).
    func send(_ message: ByteBuffer) {
        let overflow = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.queuedBytes += message.readableBytes
            if s.queuedBytes > byteLimit {
                s.closed = true
                s.overflowing = true
                return true
            }
            return false
        }
        if overflow {
            continuation.finish()
            onOverflow()
            return
        }
        continuation.yield(message)
    }

    func send(_ message: RealtimeMessage) { send(ByteBuffer(string: message.text)) }

    func send(_ bytes: [UInt8]) { send(ByteBuffer(bytes: bytes)) }

    /// The writer took a message off the queue; false when it must not be sent (the client was
    /// cut off as too slow).
    func take(_ message: ByteBuffer) -> Bool {
        state.withLock { s in
            s.queuedBytes -= message.readableBytes
            return !s.overflowing
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Closed because the client fell too far behind (what is still queued is not sent).
    var isOverflowing: Bool { state.withLock { $0.overflowing } }

    /// Closes after what is queued has been written.
    func close() {
        state.withLock { $0.closed = true }
        continuation.finish()
    }

    /// Closes at once, dropping what is queued (the client is too slow).
    func abandon() {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true; s.overflowing = true }
            return !s.overflowing
        }
        continuation.finish()
        if first { onOverflow() }
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
