import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Adds `Strict-Transport-Security` to every response head written past it. It sits after the
/// HTTP codec of a TLS connection (HTTP/1.1) or stream (HTTP/2), so responses from the router,
/// the inline responder and the refusals all carry it.
final class HSTSHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The header's value, `max-age=N`.
    private let value: String

    /// A handler that adds `Strict-Transport-Security: value`.
    init(value: String) {
        self.value = value
    }

    /// Adds the header to a response head (replacing one a route may have set); passes other parts on.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[.strictTransportSecurity] = value
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
