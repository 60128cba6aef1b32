import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers, without a request task, the requests whose answer needs no waiting on the event loop (a
/// read of an open database; a token refresh, computed on a thread pool) and hands every other
/// request on to Hummingbird unchanged.
///
/// A request served by Hummingbird costs two thread hops (event loop → task → event loop) and the
/// task's bookkeeping: about half of a small GET's server CPU on the benchmark machine (a fixed
/// answer took 17–19 µs here against 31–38 µs through Hummingbird; `docs/benchmarks.md`). The
/// handler only answers a request when no earlier request on the connection is still being
/// answered downstream, so responses always leave in request order.
final class InlineResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What to do with a request head, or nil to pass the request on. Called on the event loop; it
    /// must not block for longer than a read of a few database pages or one signature.
    typealias Answer = @Sendable (HTTPRequest) -> InlinePlan?

    /// The largest request body read here before answering; bigger ones go to Hummingbird.
    static let bodyLimit = 16 * 1024

    private let answer: Answer
    /// Counts the requests answered here (nil: not counted).
    private let answered: InlineCount?
    /// Which request is being read and what is done with it; every transition is in `InlineStateMachine`.
    private var machine = InlineStateMachine(bodyLimit: InlineResponseHandler.bodyLimit)
    // The fields below are not request states: they are true or not whatever request is being read.
    /// Replies were written here since the last flush (flushes are coalesced per turn of the event loop).
    private var needsFlush = false
    /// That flush is scheduled on the event loop.
    private var flushScheduled = false
    /// The handler is in a pipeline: an answer arriving after the connection closed is dropped.
    private var attached = true
    private var date = HTTPDate()

    init(answered: InlineCount? = nil, answer: @escaping Answer) {
        self.answered = answered
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read(unwrapInboundIn(data), data: data, context: context)
    }

    /// Does what the machine says with a part read (`data`: the part as read, nil for a held one).
    private func read(_ part: HTTPRequestPart, data: NIOAny?, context: ChannelHandlerContext) {
        let action: InlineStateMachine.ReadAction
        switch part {
        case .head(let head): action = machine.headRead(head, allocator: context.channel.allocator, plan: answer)
        case .body(let body): action = machine.bodyRead(body)
        case .end(let trailers): action = machine.endRead(trailers)
        }
        switch action {
        case .none:
            break
        case .passOn:
            context.fireChannelRead(data ?? wrapInboundOut(part))
        case .forward(let head):
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .forwardCollected(let head, let body):
            context.fireChannelRead(wrapInboundOut(.head(head)))
            if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
            context.fireChannelRead(data ?? wrapInboundOut(part))
        case .write(let reply):
            write(reply, context: context)
        case .await(let body, let finish):
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            finish(body, context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                handler.answerArrived(try? result.get(), context: context)
            }
        }
    }

    /// Writes the awaited answer or passes its request on, then reads the parts held meanwhile until one of them
    /// starts another wait, and does the read of the socket that waited.
    private func answerArrived(_ reply: InlineReply?, context: ChannelHandlerContext) {
        guard let answered = machine.answerArrived(reply), attached else { return }
        switch answered.action {
        case .write(let reply):
            write(reply, context: context)
            context.flush()
            needsFlush = false
        case .forward(let head, let body):
            context.fireChannelRead(wrapInboundOut(.head(head)))
            if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
            context.fireChannelRead(wrapInboundOut(.end(nil)))
        }
        var parts = answered.held[...]
        while let part = parts.popFirst() {
            read(part, data: nil, context: context)
            if machine.isAwaiting {
                machine.holdAgain(parts)
                break
            }
        }
        // Schedules the flush of anything answered here, and lets downstream see the requests it was given.
        channelReadComplete(context: context)
        if answered.readDeferred, machine.readRequested() { context.read() }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush, !flushScheduled {
            // Flushed after this turn of the event loop has read every ready connection, not per
            // connection: the responses then reach a load generator on the same cores in bursts.
            // Flushing here made wrk wake for each response: 0.66 context switches per GET instead
            // of 0.42, and fewer GETs per second than without this handler.
            flushScheduled = true
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.execute {
                let (handler, context) = bound.value
                handler.flushScheduled = false
                guard handler.attached, handler.needsFlush else { return }
                handler.needsFlush = false
                context.flush()
            }
        }
        context.fireChannelReadComplete()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        attached = false
    }

    func read(context: ChannelHandlerContext) {
        if machine.readRequested() { context.read() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { machine.responseEnded() }
        context.write(data, promise: promise)
    }

    private func write(_ reply: InlineReply, context: ChannelHandlerContext) {
        answered?.value.add(1, ordering: .relaxed)
        var head = HTTPResponse(status: reply.status, headerFields: reply.headers)
        head.headerFields[.contentLength] = String(reply.body.readableBytes)
        head.headerFields[.date] = date.now()
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if reply.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(reply.body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
    }
}

/// How many requests the server's `InlineResponseHandler`s answered.
final class InlineCount: Sendable {
    let value = Atomic<Int>(0)
}

/// What `InlineResponseHandler` does with a request it may answer.
enum InlinePlan {
    /// Answer now; a body, if the request has one, is read and dropped.
    case reply(InlineReply)
    /// Read the body (at most `InlineResponseHandler.bodyLimit` bytes), then answer with the reply the closure's
    /// future brings (it may be computed on another thread: the event loop goes on serving other connections), or
    /// pass the request on unchanged when that is nil or an error. Later requests on the connection wait for it.
    case afterBody((ByteBuffer, any EventLoop) -> EventLoopFuture<InlineReply?>)
}

/// The `Date` header's IMF-fixdate, formatted at most once a second.
struct HTTPDate {
    private var second: time_t = -1
    private var text = ""

    mutating func now() -> String {
        let t = time(nil)
        if t != second {
            second = t
            text = Self.format(t)
        }
        return text
    }

    static func format(_ t: time_t) -> String {
        var t = t
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
