import NIOCore
import NIOHTTP1

/// After the HTTP decoder: answers a request head that is too long with 414 or 431 (instead of
/// closing without a word), and closes a connection whose next request head does not arrive in
/// time. Without it a client could hold a connection open forever with half a request line.
///
/// Responses for requests already read are never cut into: a parse error after a response began
/// only closes the connection, as NIO's own error handler does.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: RequestHeadLimits
    private let progress: RequestHeadProgress
    /// Heads read whose response has not ended.
    private var pending = 0
    /// A response head went out and its end has not.
    private var responding = false
    /// The connection is being closed after a refusal: nothing more is passed on.
    private var refused = false
    private var timer: Scheduled<Void>?

    init(limits: RequestHeadLimits, progress: RequestHeadProgress) {
        self.limits = limits
        self.progress = progress
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armTimer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            pending += 1
            progress.awaitingHead = false
            timer?.cancel()
            timer = nil
            if head.uri.utf8.count > limits.maxURLBytes { return refuse(.uriTooLong, context: context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            responding = true
        case .end:
            responding = false
            pending = max(0, pending - 1)
            if pending == 0 {
                progress.reset()
                armTimer(context: context)
            }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        switch error {
        case .headerOverflow:
            refuse(progress.requestLineTooLong(limits.maxURLBytes) ? .uriTooLong : .requestHeaderFieldsTooLarge, context: context)
        default: refuse(.badRequest, context: context)
        }
    }

    /// Answers `status` (unless a response is under way) and closes the connection.
    private func refuse(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        timer?.cancel()
        timer = nil
        guard !responding else {
            context.close(promise: nil)
            return
        }
        responding = true
        let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Starts the wait for the next request head.
    private func armTimer(context: ChannelHandlerContext) {
        timer?.cancel()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBox = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: limits.headTimeout) {
            let guarded = handler.value
            guarded.timer = nil
            // Still no head (and nothing being answered): the client had its chance.
            if guarded.pending == 0, guarded.progress.awaitingHead { contextBox.value.close(promise: nil) }
        }
    }
}
