#if canImport(Darwin)
import Foundation

/// Opens realtime sockets with `URLSessionWebSocketTask` (Apple platforms).
///
/// ```swift
/// let socket = try await URLSessionRealtimeTransportFactory().connect(to: url, headers: [:])
/// ```
struct URLSessionRealtimeTransportFactory: RealtimeTransportFactory {
    /// The session the tasks run in.
    var session: URLSession
    /// The longest message accepted (the protocol's frames are at most 16,384 characters).
    var maximumMessageSize: Int

    init(session: URLSession = .shared, maximumMessageSize: Int = 16 << 20) {
        self.session = session
        self.maximumMessageSize = maximumMessageSize
    }

    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeTransport {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = maximumMessageSize
        let signal = TransportOpenSignal()
        // The task keeps its delegate alive until it completes.
        task.delegate = URLSessionRealtimeOpenDelegate(signal: signal)
        task.resume()
        try await signal.wait(onCancel: { task.cancel() })
        return URLSessionRealtimeTransport(task: task)
    }
}

/// Reports when the upgrade completed or failed.
private final class URLSessionRealtimeOpenDelegate: NSObject, URLSessionWebSocketDelegate, Sendable {
    let signal: TransportOpenSignal

    init(signal: TransportOpenSignal) {
        self.signal = signal
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        signal.succeed()
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        signal.fail(RealtimeTransportError("The server closed the WebSocket (code \(closeCode.rawValue))"))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        signal.fail(error ?? RealtimeTransportError.closed)
    }
}

/// An open `URLSessionWebSocketTask`.
struct URLSessionRealtimeTransport: RealtimeTransport {
    let task: URLSessionWebSocketTask
    let incoming: AsyncThrowingStream<String, any Error>

    init(task: URLSessionWebSocketTask) {
        self.task = task
        // Pulled on demand: each `next()` waits for one message. Closing the task fails the pending
        // receive, which finishes the stream.
        self.incoming = AsyncThrowingStream(unfolding: { [task] in
            while true {
                switch try await task.receive() {
                case .string(let text):
                    return text
                case .data(let data):
                    // The protocol is text-only; accept UTF-8 binary frames leniently, skip others.
                    if let text = String(data: data, encoding: .utf8) { return text }
                @unknown default:
                    continue
                }
            }
        })
    }

    func send(_ frame: String) async throws {
        try await task.send(.string(frame))
    }

    func close() async {
        task.cancel(with: .normalClosure, reason: nil)
    }
}
#endif
