import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// On an HTTP/2 stream, after the frame codec: answers a request whose target is longer than the
/// HTTP/1 path allows with 414, and one whose head (target and header fields) is longer with 431,
/// and ends the stream, as ``RequestHeadGuard`` does for HTTP/1.1. HPACK already bounds the
/// decoded header list to the connection's `SETTINGS_MAX_HEADER_LIST_SIZE`.
final class HTTP2HeadLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    /// The longest target and head.
    private let limits: RequestHeadLimits
    /// The request was refused: its body is dropped and nothing else is passed on.
    private var refused = false

    /// A limit for one stream.
    init(limits: RequestHeadLimits) {
        self.limits = limits
    }

    /// Checks the head; refuses it, or passes it on.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let target = head.path?.utf8.count ?? 0
        let fields = head.headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        let status: HTTPResponse.Status? =
            target > limits.maxURLBytes ? .uriTooLong : target + fields > limits.maxHeadBytes ? .requestHeaderFieldsTooLarge : nil
        guard let status else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        let response = HTTPResponse(status: status, headerFields: [.contentLength: "0"])
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Drops the request's later parts once it was refused.
    func channelReadComplete(context: ChannelHandlerContext) {
        if !refused { context.fireChannelReadComplete() }
    }
}
