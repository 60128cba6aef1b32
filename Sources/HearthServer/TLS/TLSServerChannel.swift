import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Each accepted connection over TLS: the handshake with the certificate in force when it was
/// accepted, then by ALPN either HTTP/2 (Hummingbird's HTTP/2 channel, each stream through the
/// same responder) or HTTP/1.1 on ``RealtimeServerChannel`` (the realtime WebSocket upgrade and
/// the inline responder included). A client that offers no ALPN gets HTTP/1.1.
struct TLSServerChannel: ServerChildChannel {
    /// What the connection turned into once the handshake was done.
    enum Negotiated: Sendable {
        /// HTTP/1.1 (ALPN `http/1.1`, or none offered).
        case http1(RealtimeServerChannel.Value)
        /// HTTP/2 (ALPN `h2`).
        case http2(HTTP2Channel.Value)
    }

    /// The connection while its handshake runs.
    struct Value: ServerChildChannelValue {
        /// Completes when the handshake is done and the pipeline is set up for the protocol.
        let negotiated: EventLoopFuture<Negotiated>
        /// The TCP connection.
        let channel: any Channel
    }

    /// The certificate source; read once per connection.
    let certificates: TLSCertificates
    /// HTTP/1.1 connections.
    let http1: RealtimeServerChannel
    /// HTTP/2 connections.
    let http2: HTTP2Channel
    /// The handshake must be done within the request head timeout.
    let limits: RequestHeadLimits
    /// How long an HTTP/2 connection's requests have to finish once a graceful shutdown began.
    static let shutdownGrace = TimeAmount.seconds(5)

    /// A channel that serves `responder` over TLS with HTTP/1.1 (`http1`) and HTTP/2.
    init(certificates: TLSCertificates, http1: RealtimeServerChannel, responder: @escaping HTTPChannelHandler.Responder, limits: RequestHeadLimits) {
        self.certificates = certificates
        self.http1 = http1
        self.limits = limits
        let hsts = certificates.hstsHeaderValue
        let streamHandlers: @Sendable () -> [any RemovableChannelHandler] = {
            var handlers: [any RemovableChannelHandler] = [HTTP2ConnectionFieldFilter(), HTTP2HeadLimit(limits: limits)]
            if let hsts { handlers.append(HSTSHandler(value: hsts)) }
            return handlers
        }
        self.http2 = HTTP2Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: limits.idleTimeout, gracefulCloseTimeout: .seconds(5),
                streamConfiguration: .init(
                    additionalChannelHandlers: streamHandlers(), idleTimeout: .nanoseconds(Int64(limits.idleTimeout / .nanoseconds(1))))))
    }

    /// Adds the TLS handler and the ALPN handler that sets up HTTP/1.1 or HTTP/2 once the handshake is done.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let http1 = self.http1
            let http2 = self.http2
            // Over `limits.maxConnections`: closed before the handshake, whichever protocol it would have spoken.
            guard http1.realtime.admit(channel) else {
                return Value(negotiated: channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel), channel: channel)
            }
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificates.context))
            let alpn = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).flatMapThrowing { connection in
                        try channel.pipeline.syncOperations.addHandler(HTTP2ShutdownDeadline(grace: Self.shutdownGrace))
                        return .http2(connection)
                    }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { .http1($0) }
                case .negotiated:
                    return channel.close().flatMapThrowing { throw ChannelError.inappropriateOperationForState }
                }
            }
            try channel.pipeline.syncOperations.addHandler(alpn)
            let negotiated = alpn.protocolNegotiationResult
            // A client that connects and never completes the handshake is closed, as one that never sends a head.
            let timeout = channel.eventLoop.scheduleTask(in: limits.headTimeout) { channel.close(promise: nil) }
            negotiated.whenComplete { _ in timeout.cancel() }
            return Value(negotiated: negotiated, channel: channel)
        }
    }

    /// Serves the connection with the negotiated protocol.
    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS connection ended before it was set up", metadata: ["hearth.error": "\(error)"])
        }
    }
}
