import NIOCore

/// On an HTTP/2 connection: once the server begins a graceful shutdown, closes the connection after
/// `grace` whatever the client does. Hummingbird's connection manager sends GOAWAY and a PING and
/// only starts its own close timer when the PING is answered, so a client that holds an idle
/// connection without reading it would otherwise keep the server from ever stopping.
final class HTTP2ShutdownDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// How long requests in flight have to finish after the shutdown began.
    private let grace: TimeAmount
    /// The close, once scheduled.
    private var deadline: Scheduled<Void>?

    /// A handler that closes the connection `grace` after the shutdown began.
    init(grace: TimeAmount) {
        self.grace = grace
    }

    /// Schedules the close on the first quiesce event.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, deadline == nil {
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The connection closed by itself: nothing left to do.
    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}
