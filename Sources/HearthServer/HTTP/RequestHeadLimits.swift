import NIOCore

/// How long a client may take to send a request head, and how long that head may be.
struct RequestHeadLimits: Sendable {
    /// From the connection opening, or the last response ending, to a complete request head.
    var headTimeout: TimeAmount = .seconds(60)
    /// Silence while a request body is read, or between requests (Hummingbird's idle timeout).
    var idleTimeout: Duration = .seconds(60)
    /// Longest request target; longer ones get 414.
    var maxURLBytes = 16 * 1024
    /// Longest request head; longer ones get 431 (414 when the request line alone is too long).
    var maxHeadBytes = 64 * 1024

    init() {}

    init(_ configuration: ServerConfiguration) {
        headTimeout = .nanoseconds(Int64(configuration.requestHeadTimeout / .nanoseconds(1)))
        idleTimeout = configuration.idleTimeout
        maxURLBytes = configuration.maxURLBytes
        maxHeadBytes = configuration.maxHeadBytes
    }
}

/// What ``RequestLineWatcher`` (before the HTTP decoder) tells ``RequestHeadGuard`` (after it)
/// about the request head being read. Both live on the connection's event loop.
final class RequestHeadProgress {
    /// No request is being read or answered: the next bytes start a request head.
    var awaitingHead = true
    /// Bytes of the awaited head seen so far without a line feed.
    var requestLineBytes = 0
    /// The length of the awaited head's request line, once its line feed arrived.
    var requestLineLength: Int?

    /// Whether a head that overflowed was too long in its request line (rather than its fields).
    func requestLineTooLong(_ maxURLBytes: Int) -> Bool {
        requestLineLength.map { $0 > maxURLBytes } ?? true
    }

    /// The next bytes start a new head.
    func reset() {
        awaitingHead = true
        requestLineBytes = 0
        requestLineLength = nil
    }
}

/// Before the HTTP decoder: notes when the request line of an awaited head ends, so an over-long
/// head can be answered 414 (the target) or 431 (the header fields). Looks at bytes only until
/// the first line feed of each head.
final class RequestLineWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let progress: RequestHeadProgress

    init(_ progress: RequestHeadProgress) {
        self.progress = progress
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if progress.awaitingHead, progress.requestLineLength == nil {
            let bytes = unwrapInboundIn(data).readableBytesView
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                progress.requestLineLength = progress.requestLineBytes + (end - bytes.startIndex)
            } else {
                progress.requestLineBytes += bytes.count
            }
        }
        context.fireChannelRead(data)
    }
}
