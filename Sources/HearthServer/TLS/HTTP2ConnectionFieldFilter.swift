import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// On an HTTP/2 stream: removes the connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2)
/// from response heads. Routes written for HTTP/1.1 set some (`Connection: keep-alive` on event
/// streams, `Connection: close`); sent over HTTP/2 they would make the client reset the stream.
final class HTTP2ConnectionFieldFilter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The fields removed.
    static let connectionSpecific: [HTTPField.Name] = [
        .connection, .upgrade, .transferEncoding, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!,
    ]

    /// Removes the fields from a response head; passes other parts on.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        for name in Self.connectionSpecific { head.headerFields[name] = nil }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
