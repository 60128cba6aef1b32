import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// What every realtime (WebSocket protocol v5) client of the realtime scenarios got, behind one lock.
final class RealtimeCollector: Sendable {
    enum Phase: UInt8 {
        case connecting, handshake, authed, failed
    }

    struct State {
        var phase: [Phase]
        /// Listen answers per client (r 2 = its own path, r 3 = `/shared`): 0 none yet, 1 ok, 2 refused.
        var ownListen: [UInt8]
        var sharedListen: [UInt8]
        var closed: [Bool]
        var authed = 0
        var failed = 0
        var listensOK = 0
        var listenFailures = 0
        /// Clients whose socket closed while the bench was not closing them.
        var closedEarly = 0
        var closing = false
        /// [client * writes + seq] = monotonic receive time (ns) of `/shared` push `seq`, 0 while not received.
        var received: [UInt64]
        var receivedCount = 0
        var duplicates = 0
        var unparsed = 0
        var pingsAnswered = 0
        var errors: [String] = []
    }

    let clients: Int
    let writes: Int
    let state: Mutex<State>

    init(clients: Int, writes: Int) {
        self.clients = clients
        self.writes = writes
        state = Mutex(
            State(
                phase: Array(repeating: .connecting, count: clients), ownListen: Array(repeating: 0, count: clients),
                sharedListen: Array(repeating: 0, count: clients), closed: Array(repeating: false, count: clients),
                received: Array(repeating: 0, count: clients * writes)))
    }

    private static func note(_ s: inout State, _ message: String) {
        if s.errors.count < 8 { s.errors.append(message) }
    }

    func handshake(_ i: Int) {
        state.withLock { if $0.phase[i] == .connecting { $0.phase[i] = .handshake } }
    }

    func authed(_ i: Int) {
        state.withLock {
            guard $0.phase[i] == .handshake || $0.phase[i] == .connecting else { return }
            $0.phase[i] = .authed
            $0.authed += 1
        }
    }

    /// Marks client `i` failed (once) unless it is already authenticated; `why` goes to the report.
    func failed(_ i: Int, _ why: String) {
        state.withLock {
            Self.note(&$0, "client \(i): \(why)")
            guard $0.phase[i] != .authed, $0.phase[i] != .failed else { return }
            $0.phase[i] = .failed
            $0.failed += 1
        }
    }

    func listenAnswered(_ i: Int, request: Int, status: String) {
        state.withLock {
            let ok = status == "ok"
            if ok {
                $0.listensOK += 1
            } else {
                $0.listenFailures += 1
                Self.note(&$0, "client \(i): listen r \(request) answered \(status)")
            }
            if request == 2 { $0.ownListen[i] = ok ? 1 : 2 } else { $0.sharedListen[i] = ok ? 1 : 2 }
        }
    }

    func delivered(_ i: Int, seq: Int, at now: UInt64) {
        state.withLock {
            guard seq < writes else {
                $0.unparsed += 1
                return
            }
            let slot = i * writes + seq
            if $0.received[slot] != 0 {
                $0.duplicates += 1
            } else {
                $0.received[slot] = now
                $0.receivedCount += 1
            }
        }
    }

    func unparsed(_ i: Int, _ text: String) {
        state.withLock {
            $0.unparsed += 1
            Self.note(&$0, "client \(i): unexpected message \(text.prefix(200))")
        }
    }

    func error(_ i: Int, _ message: String) { state.withLock { Self.note(&$0, "client \(i): \(message)") } }

    func pingAnswered() { state.withLock { $0.pingsAnswered += 1 } }

    func channelClosed(_ i: Int) {
        state.withLock {
            guard !$0.closed[i] else { return }
            $0.closed[i] = true
            if !$0.closing {
                $0.closedEarly += 1
                if $0.phase[i] != .authed, $0.phase[i] != .failed {
                    $0.phase[i] = .failed
                    $0.failed += 1
                    Self.note(&$0, "client \(i): socket closed before gauth was answered")
                }
            }
        }
    }

    func beginClosing() { state.withLock { $0.closing = true } }

    /// Clients authenticated or failed, in `range`.
    func settled(_ range: Range<Int>) -> Int {
        state.withLock { s in range.reduce(0) { $0 + (s.phase[$1] == .authed || s.phase[$1] == .failed ? 1 : 0) } }
    }

    var snapshot: State { state.withLock { $0 } }

    /// The counters alone (cheap to poll).
    var counts: (authed: Int, failed: Int, listensOK: Int, listenFailures: Int, received: Int, closedEarly: Int) {
        state.withLock { ($0.authed, $0.failed, $0.listensOK, $0.listenFailures, $0.receivedCount, $0.closedEarly) }
    }
}

/// The realtime frames the clients send: text, masked (client frames must be, RFC 6455 §5.3).
enum RealtimeFrames {
    static func text(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
    }

    static func request(_ id: Int, _ action: String, _ body: String) -> WebSocketFrame {
        text(#"{"t":"d","d":{"r":\#(id),"a":"\#(action)","b":\#(body)}}"#)
    }

    static var gauth: WebSocketFrame { request(1, "gauth", #"{"cred":"owner"}"#) }

    static func listen(_ id: Int, path: String) -> WebSocketFrame {
        request(id, "q", #"{"p":"\#(path)","h":""}"#)
    }
}

/// Watches the HTTP upgrade: a response that is not a 101 (the upgrader consumes that one) or an error before the
/// upgrade fails the client. Removed once the upgrade succeeds, so WebSocket frames never reach it.
final class RealtimeUpgradeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    static let name = "realtime-upgrade-watcher"
    let index: Int
    let collector: RealtimeCollector

    init(index: Int, collector: RealtimeCollector) {
        self.index = index
        self.collector = collector
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            collector.failed(index, "upgrade refused: HTTP \(head.status.code)")
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        collector.failed(index, "before upgrade: \(error)")
        context.close(promise: nil)
    }
}

/// One realtime client after the upgrade: reassembles split messages (a count frame, then that many chunks), answers
/// the handshake with `gauth` as the dev admin (`owner`), records the answers to its requests and the `/shared` pushes
/// (`{"seq":k}`), and answers WebSocket pings. Listens are sent by the driver (`RealtimeFleet.listenAll`).
final class RealtimeClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let index: Int
    let collector: RealtimeCollector
    private var chunksExpected = 0
    private var chunks: [UInt8] = []

    init(index: Int, collector: RealtimeCollector) {
        self.index = index
        self.collector = collector
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = nowNanos()
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            // Server frames are not masked, so this is the frame's own buffer; nothing is copied on the fast path.
            frame.unmaskedData.withUnsafeReadableBytes { receiveFrame($0, now: now, context: context) }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            collector.pingAnswered()
        case .connectionClose:
            collector.error(index, "server sent a close frame")
            context.close(promise: nil)
        default:
            break
        }
    }

    private func receiveFrame(_ bytes: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) {
        if chunksExpected > 0 {
            chunks.append(contentsOf: bytes)
            chunksExpected -= 1
            if chunksExpected == 0 {
                let message = chunks
                chunks = []
                message.withUnsafeBytes { receiveMessage($0, now: now, context: context) }
            }
            return
        }
        // A frame of at most 6 digits is a count: that many chunks follow (spec §6.1).
        if !bytes.isEmpty, bytes.count <= 6, bytes.allSatisfy({ (48...57).contains($0) }) {
            let count = Int(String(decoding: bytes, as: UTF8.self)) ?? 0
            if count == 0 { collector.error(index, "server sent a bare 0 frame") }
            chunksExpected = count
            return
        }
        receiveMessage(bytes, now: now, context: context)
    }

    private static let dataAction = Array(#""a":"d""#.utf8)
    private static let sharedPaths = [Array(#""p":"shared""#.utf8), Array(#""p":"/shared""#.utf8)]
    private static let seqKey = Array(#""seq":"#.utf8)
    private static let nullData = Array(#""d":null"#.utf8)

    private func receiveMessage(_ bytes: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) {
        // Fast path for the fan-out pushes: a byte search, no strings or JSON objects, so the clients' own parsing
        // takes as little as it can of the two cores they share with the server.
        if Self.find(Self.dataAction, in: bytes) != nil, Self.sharedPaths.contains(where: { Self.find($0, in: bytes) != nil }) {
            if let seq = Self.integer(after: Self.seqKey, in: bytes) {
                if seq >= 0 { collector.delivered(index, seq: seq, at: now) }  // -1 is the seeded initial value
            } else if Self.find(Self.nullData, in: bytes) == nil {
                collector.unparsed(index, String(decoding: bytes, as: UTF8.self))
            }
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let message = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let type = message["t"] as? String
        else {
            collector.unparsed(index, text)
            return
        }
        let body = message["d"] as? [String: Any]
        if type == "c" {
            switch body?["t"] as? String {
            case "h":
                collector.handshake(index)
                context.writeAndFlush(wrapOutboundOut(RealtimeFrames.gauth), promise: nil)
            case "o":
                break
            default:
                collector.error(index, "control message \(text.prefix(200))")
            }
            return
        }
        guard let body else {
            collector.unparsed(index, text)
            return
        }
        if let request = body["r"] as? Int {
            let status = (body["b"] as? [String: Any])?["s"] as? String ?? "?"
            switch request {
            case 1:
                if status == "ok" { collector.authed(index) } else { collector.failed(index, "gauth answered \(status)") }
            case 2, 3:
                collector.listenAnswered(index, request: request, status: status)
            default:
                collector.unparsed(index, text)
            }
        } else if let action = body["a"] as? String {
            // The initial data of the client's own path (null) is expected; anything else is not.
            let path = (body["b"] as? [String: Any])?["p"] as? String
            if action == "d", let path, path.trimmingPrefix("/") == "conns/\(index)" { return }
            collector.unparsed(index, text)
        } else {
            collector.error(index, "server error \(text.prefix(200))")
        }
    }

    /// Where `needle` first occurs in `bytes`.
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == first {
                var j = 1
                while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// The integer (optionally negative, at most 18 digits) right after `key`.
    static func integer(after key: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var i = find(key, in: bytes).map({ $0 + key.count }) else { return nil }
        let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value = 0
        var digits = 0
        while i < bytes.count, (48...57).contains(bytes[i]), digits < 18 {
            value = value * 10 + Int(bytes[i] - 48)
            digits += 1
            i += 1
        }
        return digits == 0 ? nil : (negative ? -value : value)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        collector.error(index, "\(error)")
        context.close(promise: nil)
    }
}

/// N realtime clients of one server: connects them in batches (upgrade, handshake, `gauth`), then makes each listen on
/// `/conns/<i>` and `/shared`. Channels are closed by `close()`.
final class RealtimeFleet {
    let port: Int
    let namespace: String
    let collector: RealtimeCollector
    let group: MultiThreadedEventLoopGroup
    private(set) var channels: [(any Channel)?]
    private(set) var connectErrors: [String] = []
    private(set) var connectFailures = 0

    init(port: Int, namespace: String, clients: Int, writes: Int, threads: Int) {
        self.port = port
        self.namespace = namespace
        collector = RealtimeCollector(clients: clients, writes: writes)
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        channels = Array(repeating: nil, count: clients)
    }

    var count: Int { channels.count }

    private func connect(_ i: Int) -> EventLoopFuture<any Channel> {
        let (collector, port, uri) = (collector, port, "/.ws?v=5&ns=\(namespace)")
        return ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 20) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(RealtimeClientHandler(index: i, collector: collector))
                        }
                    }
                    // The handshake message can arrive in the same read as the 101: forward what the HTTP decoder
                    // holds after the upgrade instead of dropping it.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                context.pipeline.syncOperations.removeHandler(name: RealtimeUpgradeWatcher.name, promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(
                        RealtimeUpgradeWatcher(index: i, collector: collector), name: RealtimeUpgradeWatcher.name)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .map { channel in
                channel.closeFuture.whenComplete { _ in collector.channelClosed(i) }
                // The upgrade handler adds Upgrade, Connection and Sec-WebSocket-* to this request.
                var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
                head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
                head.headers.add(name: "Content-Length", value: "0")
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                return channel
            }
    }

    /// Opens every client, `batch` at a time; each batch waits (at most `batchTimeout` s) until its clients are
    /// authenticated or failed. Returns the seconds it took.
    func connectAll(batch: Int = 100, batchTimeout: Double = 30) -> Double {
        let start = nowNanos()
        var first = 0
        while first < count {
            let upper = min(first + batch, count)
            let futures = (first..<upper).map { ($0, connect($0)) }
            for (i, f) in futures {
                do {
                    channels[i] = try f.wait()
                } catch {
                    connectFailures += 1
                    collector.failed(i, "connect: \(error)")
                    if connectErrors.count < 5 { connectErrors.append("\(error)") }
                }
            }
            let deadline = nowNanos() + UInt64(batchTimeout * 1e9)
            while collector.settled(first..<upper) < upper - first, nowNanos() < deadline { usleep(1000) }
            if upper % 1000 == 0 || upper == count {
                log("realtime: \(upper)/\(count) clients connected (\(collector.counts.authed) authenticated)")
            }
            first = upper
        }
        return Double(nowNanos() - start) / 1e9
    }

    /// Sends both listens from every authenticated client, `batch` clients at a time, waiting (at most `batchTimeout` s)
    /// for each batch's answers. Returns the seconds it took.
    func listenAll(batch: Int = 100, batchTimeout: Double = 30) -> Double {
        let start = nowNanos()
        let authed = collector.state.withLock { s in s.phase.map { $0 == .authed } }
        var first = 0
        while first < count {
            let upper = min(first + batch, count)
            var sent = 0
            for i in first..<upper where authed[i] {
                guard let channel = channels[i] else { continue }
                channel.write(RealtimeFrames.listen(2, path: "/conns/\(i)"), promise: nil)
                channel.writeAndFlush(RealtimeFrames.listen(3, path: "/shared"), promise: nil)
                sent += 2
            }
            // Until every listen of the batch is answered (ok or not), or its client's socket closed.
            let deadline = nowNanos() + UInt64(batchTimeout * 1e9)
            while sent > 0, nowNanos() < deadline {
                let pending = collector.state.withLock { s in
                    (first..<upper).reduce(0) { n, i in
                        n + (authed[i] && !s.closed[i] && (s.ownListen[i] == 0 || s.sharedListen[i] == 0) ? 1 : 0)
                    }
                }
                if pending == 0 { break }
                usleep(1000)
            }
            if upper % 2000 == 0 || upper == count {
                log("realtime: listens sent for \(upper)/\(count) clients (\(collector.counts.listensOK) acknowledged)")
            }
            first = upper
        }
        return Double(nowNanos() - start) / 1e9
    }

    /// Closes every client and waits until their sockets are closed.
    func close() {
        collector.beginClosing()
        let open = channels.compactMap { $0 }
        for channel in open { channel.close(promise: nil) }
        for channel in open { _ = try? channel.closeFuture.wait() }
        channels = Array(repeating: nil, count: channels.count)
    }

    func shutdown() {
        close()
        try? group.syncShutdownGracefully()
    }
}
