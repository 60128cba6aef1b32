import Foundation
import HearthCore
import HearthWire
import Synchronization
import Testing

@testable import Hearth

/// Opens `FakeSocket`s instead of network connections, and can refuse to.
final class FakeTransportFactory: RealtimeTransportFactory {
    private struct State {
        var attempts: [URL] = []
        var refusing = false
    }

    private let state = Mutex(State())
    /// Every socket opened, in order.
    let sockets: AsyncStream<FakeSocket>
    private let socketSink: AsyncStream<FakeSocket>.Continuation

    init() {
        (sockets, socketSink) = AsyncStream.makeStream(of: FakeSocket.self)
    }

    /// While true, connection attempts fail as if the server were unreachable.
    var refusing: Bool {
        get { state.withLock { $0.refusing } }
        set { state.withLock { $0.refusing = newValue } }
    }

    /// The URLs of every connection attempt, refused or not.
    var attempts: [URL] { state.withLock { $0.attempts } }

    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeTransport {
        let refused = state.withLock { state in
            state.attempts.append(url)
            return state.refusing
        }
        if refused { throw RealtimeTransportError("connection refused") }
        let socket = FakeSocket(url: url, headers: headers)
        socketSink.yield(socket)
        return socket
    }
}

/// One fake WebSocket: records what the client sends and lets the test play the server.
final class FakeSocket: RealtimeTransport {
    let url: URL
    let headers: [String: String]
    let incoming: AsyncThrowingStream<String, any Error>
    private let serverSink: AsyncThrowingStream<String, any Error>.Continuation
    /// The frames the client sent, in order.
    let sentFrames: AsyncStream<String>
    private let sentSink: AsyncStream<String>.Continuation
    private let closed = Mutex(false)
    private let sentLog = Mutex<[String]>([])

    /// Every frame the client sent so far, without consuming ``sentFrames``.
    var framesSent: [String] { sentLog.withLock { $0 } }

    init(url: URL, headers: [String: String]) {
        self.url = url
        self.headers = headers
        (incoming, serverSink) = AsyncThrowingStream.makeStream(of: String.self)
        (sentFrames, sentSink) = AsyncStream.makeStream(of: String.self)
    }

    var isClosed: Bool { closed.withLock { $0 } }

    func send(_ frame: String) async throws {
        guard !isClosed else { throw RealtimeTransportError.closed }
        sentLog.withLock { $0.append(frame) }
        sentSink.yield(frame)
    }

    func close() async {
        closed.withLock { $0 = true }
        serverSink.finish()
        sentSink.finish()
    }

    // MARK: The server's side

    /// Delivers one raw frame.
    func deliver(frame: String) { serverSink.yield(frame) }

    /// Delivers a message, split into frames as the protocol requires.
    func deliver(_ message: RealtimeMessage) {
        for frame in RealtimeFraming.frames(for: message.text) { serverSink.yield(frame) }
    }

    func deliverHandshake(timestamp: Int64, session: String) {
        deliver(.handshake(timestamp: timestamp, host: "localhost:9000", session: session))
    }

    func deliverResponse(to request: ClientRequest, status: String = "ok", data: JSONValue = .string("")) {
        deliver(.response(id: request.id, status: RealtimeStatus(rawValue: status), data: data))
    }

    /// The network fails under the socket.
    func drop() {
        closed.withLock { $0 = true }
        serverSink.finish(throwing: RealtimeTransportError("connection reset by peer"))
    }
}

/// A request the client sent.
struct ClientRequest: Sendable {
    var id: Int
    var action: String
    var body: JSONValue
}

/// Reads what the client sent on one socket, frame by frame or message by message.
struct ClientMessages {
    private var frames: AsyncStream<String>.Iterator
    private var assembler = RealtimeFrameAssembler()

    init(_ socket: FakeSocket) {
        frames = socket.sentFrames.makeAsyncIterator()
    }

    /// The next raw frame (nil once the socket closed).
    mutating func nextFrame() async -> String? {
        await frames.next()
    }

    /// The next whole message, skipping keep-alive frames.
    mutating func nextMessage() async throws -> RealtimeMessage {
        while let frame = await frames.next() {
            if let text = try assembler.receive(frame) { return try RealtimeMessage(parsing: text) }
        }
        throw RealtimeTransportError("the socket closed before the client sent another message")
    }

    /// The next message, which must be a request.
    mutating func nextRequest(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ClientRequest {
        let message = try await nextMessage()
        guard case .request(let id, let action, let body) = message else {
            Issue.record("expected a request, got \(message)", sourceLocation: sourceLocation)
            throw RealtimeTransportError("not a request")
        }
        return ClientRequest(id: id, action: action.rawValue, body: body)
    }
}
