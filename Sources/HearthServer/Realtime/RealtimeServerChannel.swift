import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// Each accepted connection: HTTP/1 served by Hummingbird, or — when its first request is a
/// WebSocket upgrade — the realtime protocol on a plain NIO handler.
///
/// Hummingbird's own WebSocket channel keeps a task (and its stack) per connection for as long as
/// the socket is open, about 25 KB per client; here the connection's task ends as soon as the
/// upgrade is done, and an idle realtime client costs only its channel and session.
struct RealtimeServerChannel: ServerChildChannel, HTTPChannelHandler {
    enum Upgrade: Sendable {
        /// The realtime handler owns the channel.
        case realtime
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade was asked for and refused.
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgrade: EventLoopFuture<Upgrade>
        let channel: any Channel
    }

    let responder: Responder
    let realtime: RealtimeController
    /// Answers small reads and token refreshes without a request task (nil: every request goes to `responder`).
    let inline: InlineResponseHandler.Answer?
    /// Counts the requests `inline` answered.
    let inlineCount: InlineCount?
    /// Head and idle timeouts, and the longest request head.
    let limits: RequestHeadLimits
    /// Behind TLS: requests are `https`, and responses carry this `Strict-Transport-Security` value when set.
    let tls: (secure: Bool, hsts: String?)

    init(
        responder: @escaping Responder, realtime: RealtimeController, inline: InlineResponseHandler.Answer? = nil,
        inlineCount: InlineCount? = nil, limits: RequestHeadLimits = RequestHeadLimits(), tls: (secure: Bool, hsts: String?) = (false, nil)
    ) {
        self.limits = limits
        self.tls = tls
        self.realtime = realtime
        self.inline = inline
        self.inlineCount = inlineCount
        self.responder = { request, writer, channel in
            // NIO upgrades only on a connection's first request; a later upgrade request is sent
            // to a new connection (as Hummingbird's WebSocket channel does).
            if request.headers[.upgrade]?.lowercased() == "websocket" {
                let target = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
                try await writer.writeResponse(HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: target]))
                throw RedirectedUpgrade()
            }
            try await responder(request, writer, channel)
        }
    }

    private struct RedirectedUpgrade: Error {}

    /// Pipeline names of the handlers that guard request heads (removed when a WebSocket takes over).
    static let headWatcherName = "hearth.request-line-watcher"
    static let headGuardName = "hearth.request-head-guard"

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let realtime = self.realtime
            // Over `limits.maxConnections`: closed here, before a byte is read (see `RequestLimits.admit`). Behind TLS the
            // TLS channel counted the connection already, before its handshake.
            guard tls.secure || realtime.admit(channel) else { return Value(upgrade: channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel), channel: channel) }
            let inline = self.inline
            let inlineCount = self.inlineCount
            let limits = self.limits
            let tls = self.tls
            let attempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                maxFrameSize: RealtimeController.maxMessageBytes,
                shouldUpgrade: { channel, head in
                    attempted.value = true
                    return channel.eventLoop.makeSucceededFuture(realtime.shouldUpgrade(head) ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        guard let name = realtime.namespace(for: head) else { throw ChannelError.inappropriateOperationForState }
                        // The head is read: what follows is WebSocket frames, which ping each other.
                        channel.pipeline.syncOperations.removeHandler(name: Self.headGuardName, promise: nil)
                        channel.pipeline.syncOperations.removeHandler(name: Self.headWatcherName, promise: nil)
                        try realtime.attach(to: channel, head: head, namespace: name)
                        return Upgrade.realtime
                    }
                })
            let configuration = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: tls.secure))
                        if let hsts = tls.hsts { try channel.pipeline.syncOperations.addHandler(HSTSHandler(value: hsts)) }
                        if let limiter = RequestLimiter(realtime.database) { try channel.pipeline.syncOperations.addHandler(RateLimitHandler(limiter)) }
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: limits.idleTimeout, logger: logger))
                        if let inline { try channel.pipeline.syncOperations.addHandler(InlineResponseHandler(answered: inlineCount, answer: inline)) }
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return attempted.value ? Upgrade.refused(http) : Upgrade.http(http)
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration<Upgrade>(upgradeConfiguration: configuration)
            pipeline.enablePipelining = false  // NIOAsyncChannel serves requests one at a time
            pipeline.enableErrorHandling = false  // Hummingbird answers parse errors
            pipeline.enableResponseHeaderValidation = false  // HTTPTypes already validated them
            // The URL counts as one field: both bounds are the head's, and the guard answers 414 for
            // a target over its own bound.
            pipeline.decoderConfiguration.maxHeaderFieldSize = limits.maxHeadBytes
            pipeline.decoderConfiguration.maxHeaderListSize = limits.maxHeadBytes
            let progress = RequestHeadProgress()
            try channel.pipeline.syncOperations.addHandler(RequestLineWatcher(progress), name: Self.headWatcherName)
            let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
            // After the upgrade handler, which leaves; Hummingbird's HTTP handlers go after it.
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(limits: limits, progress: progress), name: Self.headGuardName)
            return Value(upgrade: upgrade, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgrade.get() {
            case .realtime:
                return
            case .http(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http):
                try await http.executeThenClose { _, outbound in
                    let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                    try await outbound.write(contentsOf: [.head(head), .end(nil)])
                }
            }
        } catch {
            logger.debug("connection ended during upgrade", metadata: ["hearth.error": "\(error)"])
        }
    }
}
