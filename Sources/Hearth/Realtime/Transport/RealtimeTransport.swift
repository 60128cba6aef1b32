import Foundation

/// One open text WebSocket, as the realtime connection uses it.
///
/// The connection reads `incoming` from one task and calls `send` from another, one frame at a
/// time and in order; `close` may come from anywhere, more than once.
///
/// ```swift
/// let socket = try await factory.connect(to: url, headers: ["User-Agent": "Hearth/5"])
/// try await socket.send("0")
/// for try await frame in socket.incoming { print(frame) }
/// await socket.close()
/// ```
protocol RealtimeTransport: Sendable {
    /// The text frames the server sends, in arrival order. Finishes when the socket closes; finishes
    /// by throwing when it failed. One consumer; cancelling it closes the socket.
    var incoming: AsyncThrowingStream<String, any Error> { get }

    /// Sends one text frame. Throws when the socket is closed or the write failed.
    func send(_ frame: String) async throws

    /// Closes the socket (idempotent). `incoming` finishes soon after.
    func close() async
}

/// Opens WebSockets: the seam where tests put a fake in place of the network.
///
/// ```swift
/// let factory = makePlatformRealtimeTransportFactory()
/// let socket = try await factory.connect(to: URL(string: "ws://127.0.0.1:9000/.ws?v=5&ns=demo")!, headers: [:])
/// ```
protocol RealtimeTransportFactory: Sendable {
    /// Opens a socket to `url` with these extra upgrade-request headers; returns once the upgrade
    /// succeeded. Throws when the server cannot be reached or refuses the upgrade.
    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeTransport
}

/// Why a socket could not be opened or used.
struct RealtimeTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }

    static let closed = RealtimeTransportError("The WebSocket is closed")
}

/// The WebSocket implementation for this platform: `URLSessionWebSocketTask` on Apple platforms,
/// swift-websocket's `WSClient` on Linux.
func makePlatformRealtimeTransportFactory() -> any RealtimeTransportFactory {
    #if canImport(Darwin)
    return URLSessionRealtimeTransportFactory()
    #elseif canImport(WSClient)
    return WebSocketClientRealtimeTransportFactory()
    #else
    return UnavailableRealtimeTransportFactory()
    #endif
}

/// A platform without a WebSocket client: every connection attempt fails (the connection retries
/// with backoff, and writes wait, as they would offline).
struct UnavailableRealtimeTransportFactory: RealtimeTransportFactory {
    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeTransport {
        throw RealtimeTransportError("No WebSocket client is available on this platform")
    }
}
