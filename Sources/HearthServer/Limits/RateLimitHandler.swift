import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Checks each request head of an HTTP connection against the rate limits, on the event loop, before anything
/// answers it: a request over a limit goes on marked (``RequestLimiter/Refusal/field``) and the responder that gets
/// it, inline or through Hummingbird, answers `429` instead of serving it. A marker sent by the client is removed.
///
/// Installed only when a request rate is limited. Per request it costs one lookup in a bucket table under a lock
/// held for a dictionary access (plus, for a signed-in request, a lookup in the authenticator's token cache); the
/// connection's address is formatted once.
final class RateLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Request parts from the HTTP codec.
    typealias InboundIn = HTTPRequestPart
    /// The same parts, a head perhaps marked.
    typealias InboundOut = HTTPRequestPart

    /// Decides over each head.
    private let limiter: RequestLimiter
    /// The peer's address, formatted on the first request.
    private var peer: String??

    /// A handler deciding with `limiter`.
    init(_ limiter: RequestLimiter) {
        self.limiter = limiter
    }

    /// Checks (and marks or unmarks) a head; passes every other part on unchanged.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let address: String?
        if let known = peer {
            address = known
        } else {
            address = context.channel.remoteAddress?.ipAddress
            peer = .some(address)
        }
        if head.headerFields[RequestLimiter.Refusal.field] != nil { head.headerFields[RequestLimiter.Refusal.field] = nil }
        if let refusal = limiter.check(head.headerFields, target: head.path, peer: address) {
            head.headerFields[RequestLimiter.Refusal.field] = refusal.marker
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
