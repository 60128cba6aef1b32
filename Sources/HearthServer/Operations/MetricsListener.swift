import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The address of the separate metrics listener (`--metrics-listen HOST:PORT`).
public struct MetricsListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host or IP address to bind (`127.0.0.1`, `10.0.0.5`, `::1`).
    public var host: String
    /// The port (0: any free one).
    public var port: Int

    /// `HOST:PORT`, or `[IPv6]:PORT`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// An address from its parts.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; nil when the text is not one (no port, a port out of range, no host).
    public init?(parsing text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (0...65_535).contains(number) else { return nil }
        self.init(host: String(host), port: number)
    }
}

/// Answers the metrics listener's requests: `/metrics`, `/healthz` and `/readyz` without a credential (the
/// listener's address is meant to be reachable only from inside), 404 for every other path.
struct MetricsListenerResponder: HTTPResponder {
    /// The endpoints and the counters they read (the main server's).
    let metrics: ServerMetrics

    /// The operations endpoint's answer, or 404.
    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        guard OperationsEndpoints.handles(request.method, request.uri.path) else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Only /metrics, /healthz and /readyz are served here.\n")))
        }
        return await metrics.operations.respond(to: request, metrics: metrics, credentialRequired: false)
    }
}

extension HearthServer {
    /// The separate metrics listener at `address`: a plain HTTP/1.1 server, a service of ``serviceGroup(gracefulShutdownSignals:services:onServerRunning:)``
    /// that starts and stops with the main one.
    func metricsApplication(_ address: MetricsListenAddress) -> some ApplicationProtocol {
        let logger = self.logger
        var appLogger = logger
        appLogger.logLevel = max(logger.logLevel, .notice)
        return Application(
            responder: MetricsListenerResponder(metrics: metrics),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                logger.info(
                    "metrics listening", metadata: ["hearth.address": "\(MetricsListenAddress(host: address.host, port: port))"])
            },
            logger: appLogger)
    }
}
