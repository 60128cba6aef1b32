#if !canImport(Darwin) && canImport(WSClient)
import Foundation
// HTTPTypes and Logging are WSClient's own dependencies: its configuration takes `HTTPFields`
// for the upgrade headers and its entry point takes a `Logger`.
import HTTPTypes
import Logging
import Synchronization
import WSClient

/// Opens realtime sockets with swift-websocket's `WSClient` (Linux, where Foundation has no
/// WebSocket task).
///
/// ```swift
/// let socket = try await WebSocketClientRealtimeTransportFactory().connect(to: url, headers: [:])
/// ```
struct WebSocketClientRealtimeTransportFactory: RealtimeTransportFactory {
    /// The largest WebSocket frame or message accepted or sent, in bytes. The protocol keeps its
    /// frames to 16,384 characters; this leaves room for servers that do not split.
    var maxFrameSize: Int
    /// How long to wait for the server's answer to a close frame.
    var closeTimeout: Duration
    /// WSClient's own diagnostics; silent by default.
    var logger: Logger

    init(
        maxFrameSize: Int = 16 << 20, closeTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "hearth.realtime.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.maxFrameSize = maxFrameSize
        self.closeTimeout = closeTimeout
        self.logger = logger
    }

    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeTransport {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { throw RealtimeTransportError("Invalid header name \(name)") }
            fields[fieldName] = value
        }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: maxFrameSize, additionalHeaders: fields, closeTimeout: closeTimeout)
        let socket = WebSocketClientRealtimeTransport(maxMessageSize: maxFrameSize)
        try await socket.start(url: url.absoluteString, configuration: configuration, logger: logger)
        return socket
    }
}

/// A `WSClient` connection bridged to `RealtimeTransport`.
///
/// `WebSocketClient.connect` runs a closure for the lifetime of the socket, so the socket lives in
/// a task this object owns: the closure forwards text messages into `incoming` and returns when
/// the server closes or `close()` is called (WSClient then sends the close frame).
final class WebSocketClientRealtimeTransport: RealtimeTransport {
    let incoming: AsyncThrowingStream<String, any Error>
    private let incomingSink: AsyncThrowingStream<String, any Error>.Continuation
    /// Finished by `close()`: tells the connection closure to return.
    private let closeRequests: AsyncStream<Void>
    private let closeRequestSink: AsyncStream<Void>.Continuation
    private let maxMessageSize: Int
    private let state = Mutex<State>(State())

    private struct State {
        var outbound: WebSocketOutboundWriter?
        var connection: Task<Void, Never>?
    }

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
        (incoming, incomingSink) = AsyncThrowingStream.makeStream(of: String.self)
        (closeRequests, closeRequestSink) = AsyncStream.makeStream(of: Void.self)
        // The reader went away (finished or cancelled): close the socket.
        let closeRequestSink = closeRequestSink
        incomingSink.onTermination = { _ in closeRequestSink.finish() }
    }

    /// Connects; returns once the upgrade succeeded.
    func start(url: String, configuration: WebSocketClientConfiguration, logger: Logger) async throws {
        let signal = TransportOpenSignal()
        let connection = Task { await self.run(url: url, configuration: configuration, logger: logger, signal: signal) }
        state.withLock { $0.connection = connection }
        try await signal.wait(onCancel: { connection.cancel() })
    }

    private func run(url: String, configuration: WebSocketClientConfiguration, logger: Logger, signal: TransportOpenSignal) async {
        do {
            try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                self.state.withLock { $0.outbound = outbound }
                signal.succeed()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: self.maxMessageSize) {
                            // The protocol is text-only; binary messages are ignored.
                            if case .text(let text) = message { self.incomingSink.yield(text) }
                        }
                    }
                    group.addTask {
                        for await _ in self.closeRequests {}
                    }
                    // Whichever ends first (the server closed, or we were asked to) ends the socket.
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
            signal.fail(RealtimeTransportError.closed)
            incomingSink.finish()
        } catch {
            signal.fail(error)
            incomingSink.finish(throwing: error)
        }
        state.withLock { $0.outbound = nil }
    }

    func send(_ frame: String) async throws {
        guard let outbound = state.withLock({ $0.outbound }) else { throw RealtimeTransportError.closed }
        try await outbound.write(.text(frame))
    }

    func close() async {
        closeRequestSink.finish()
        let (outbound, connection) = state.withLock { ($0.outbound, $0.connection) }
        // Still upgrading: abandon the attempt.
        if outbound == nil { connection?.cancel() }
    }
}
#endif
