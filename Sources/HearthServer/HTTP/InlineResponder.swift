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
    /// Requests handed downstream whose response has not ended yet.
    private var downstream = 0
    /// Set between the head and the end of a request this handler answers.
    private var answering: InlineReply?
    /// Set between the head and the end of a request whose body this handler reads before deciding.
    private var collecting: Collecting?
    /// Set while an answer computed elsewhere (`InlinePlan.afterBody`) is awaited; requests read meanwhile wait in
    /// `held`, so nothing overtakes it.
    private var awaiting = false
    private var held: [NIOAny] = []
    /// A read from the socket asked for while awaiting: it waits too, so `held` stays within what was already read.
    private var readDeferred = false
    /// Set between the head and the end of a request that went downstream.
    private var forwarding = false
    private var needsFlush = false
    private var flushScheduled = false
    private var attached = true
    private var date = HTTPDate()

    init(answered: InlineCount? = nil, answer: @escaping Answer) {
        self.answered = answered
        self.answer = answer
    }

    private struct Collecting {
        var head: HTTPRequest
        var body: ByteBuffer
        var finish: (ByteBuffer, any EventLoop) -> EventLoopFuture<InlineReply?>
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if awaiting {
            held.append(data)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if downstream == 0, !forwarding, head.headerFields[.connection] == nil, let plan = answer(head) {
                switch plan {
                case .reply(let reply):
                    answering = reply
                    return
                case .afterBody(let finish):
                    // Only a body of a declared, small size, and no `Expect: 100-continue` to answer first.
                    if head.headerFields[.expect] == nil, let length = head.headerFields[.contentLength].flatMap(Int.init),
                        length <= Self.bodyLimit
                    {
                        collecting = Collecting(head: head, body: context.channel.allocator.buffer(capacity: length), finish: finish)
                        return
                    }
                }
            }
            startForwarding(head, context: context)
        case .body(var part):
            if var request = collecting {
                collecting = nil
                guard request.body.readableBytes + part.readableBytes <= Self.bodyLimit else {
                    // More than the head declared: not ours to judge.
                    startForwarding(request.head, context: context)
                    if request.body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(request.body))) }
                    context.fireChannelRead(data)
                    return
                }
                request.body.writeBuffer(&part)
                collecting = request
                return
            }
            // A body on a request answered here (a GET with a body) is read and dropped.
            if answering == nil { context.fireChannelRead(data) }
        case .end:
            if let request = collecting {
                collecting = nil
                awaiting = true
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let (head, body) = (request.head, request.body)
                request.finish(body, context.eventLoop).whenComplete { result in
                    let (handler, context) = bound.value
                    handler.awaiting = false
                    guard handler.attached else { return }
                    if case .success(let reply?) = result {
                        handler.write(reply, context: context)
                        context.flush()
                        handler.needsFlush = false
                    } else {
                        handler.startForwarding(head, context: context)
                        if body.readableBytes > 0 { context.fireChannelRead(handler.wrapInboundOut(.body(body))) }
                        handler.forwarding = false
                        context.fireChannelRead(handler.wrapInboundOut(.end(nil)))
                    }
                    handler.releaseHeld(context: context)
                    if !handler.awaiting, handler.readDeferred {
                        handler.readDeferred = false
                        context.read()
                    }
                }
            } else if let reply = answering {
                answering = nil
                write(reply, context: context)
            } else {
                forwarding = false
                context.fireChannelRead(data)
            }
        }
    }

    /// Reads the parts held while an answer was awaited, until one of them starts another wait.
    private func releaseHeld(context: ChannelHandlerContext) {
        var parts = held[...]
        held = []
        while let part = parts.popFirst() {
            channelRead(context: context, data: part)
            if awaiting {
                held.append(contentsOf: parts)
                break
            }
        }
        // Schedules the flush of anything answered here, and lets downstream see the requests it was given.
        channelReadComplete(context: context)
    }

    private func startForwarding(_ head: HTTPRequest, context: ChannelHandlerContext) {
        forwarding = true
        downstream += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
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
        if awaiting {
            readDeferred = true
            return
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { downstream -= 1 }
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
