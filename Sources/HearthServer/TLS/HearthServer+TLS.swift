import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

extension HearthServer {
    /// The application over TLS: as ``application(onServerRunning:)`` builds it, but each connection
    /// goes through ``TLSServerChannel`` (HTTP/2 or HTTP/1.1 by ALPN, with the certificate `tls`
    /// holds at the moment it is accepted), and the functions' default public URL is `https://`.
    /// `count` counts the inline answers.
    func tlsApplication(
        _ tls: TLSCertificates, responder: HearthResponder, inline: InlineResponseHandler.Answer?, inlineCount count: InlineCount,
        logger appLogger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) -> Application<HearthResponder> {
        let realtime = self.realtime
        let configuration = self.configuration
        let limits = RequestHeadLimits(configuration)
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                TLSServerChannel(
                    certificates: tls,
                    http1: RealtimeServerChannel(
                        responder: responder, realtime: realtime, inline: inline, inlineCount: count, limits: limits,
                        tls: (secure: true, hsts: tls.hstsHeaderValue)),
                    responder: responder, limits: limits)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: started(scheme: "https", then: onServerRunning),
            logger: appLogger
        )
    }
}
