import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Shared, lock-protected record of what every SSE listener received.
final class FanoutCollector: Sendable {
    struct State {
        /// [listener][write] = delivery latency in ns, or -1 while not received.
        var latency: [[Int64]]
        var initialReceived = 0
        var initialDone: [Bool]
        var duplicates = 0
        var unparsed = 0
        var badStatus = 0
        var closed = 0
        var errors: [String] = []
    }

    let listeners: Int
    let writes: Int
    let state: Mutex<State>

    init(listeners: Int, writes: Int) {
        self.listeners = listeners
        self.writes = writes
        state = Mutex(
            State(
                latency: Array(repeating: Array(repeating: -1, count: writes), count: listeners),
                initialDone: Array(repeating: false, count: listeners)))
    }

    func initial(_ listener: Int) {
        state.withLock {
            if !$0.initialDone[listener] {
                $0.initialDone[listener] = true
                $0.initialReceived += 1
            }
        }
    }

    func delivered(_ listener: Int, seq: Int, latency: Int64) {
        state.withLock {
            guard seq >= 0, seq < writes else {
                $0.unparsed += 1
                return
            }
            if $0.latency[listener][seq] >= 0 { $0.duplicates += 1 } else { $0.latency[listener][seq] = latency }
        }
    }

    func unparsed() { state.withLock { $0.unparsed += 1 } }
    func badStatus(_ code: UInt) {
        state.withLock {
            $0.badStatus += 1
            if $0.errors.count < 5 { $0.errors.append("HTTP \(code)") }
        }
    }
    func closed() { state.withLock { $0.closed += 1 } }
    func error(_ e: any Error) {
        state.withLock { if $0.errors.count < 5 { $0.errors.append("\(e)") } }
    }

    var initialReceived: Int { state.withLock { $0.initialReceived } }
    var closedCount: Int { state.withLock { $0.closed } }

    /// Deliveries received so far for writes `0..<upTo`.
    func receivedCount(upTo: Int) -> Int {
        state.withLock { s in s.latency.reduce(0) { acc, row in acc + row.prefix(upTo).filter { $0 >= 0 }.count } }
    }
}

/// An SSE listener: sends `GET <uri>` with `Accept: text/event-stream` and its own `Authorization`, splits the body
/// into events, treats the first event as the initial put and every later one as a delivery carrying `"seq"` and
/// `"t"` (send time, ns).
final class SSEListenerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let index: Int
    let port: Int
    let uri: String
    let authorization: String
    let collector: FanoutCollector
    private var pending: [UInt8] = []
    private var gotInitial = false

    init(index: Int, port: Int, uri: String, authorization: String, collector: FanoutCollector) {
        self.index = index
        self.port = port
        self.uri = uri
        self.authorization = authorization
        self.collector = collector
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        head.headers.add(name: "Authorization", value: authorization)
        head.headers.add(name: "Accept", value: "text/event-stream")
        head.headers.add(name: "Cache-Control", value: "no-cache")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            if h.status != .ok { collector.badStatus(h.status.code) }
        case .body(let buffer):
            let now = nowNanos()
            pending.append(contentsOf: buffer.readableBytesView)
            drain(now: now)
        case .end:
            break
        }
    }

    private func drain(now: UInt64) {
        var start = 0
        var i = 0
        while i + 1 < pending.count {
            if pending[i] == 10, pending[i + 1] == 10 {
                handleEvent(pending[start..<i], now: now)
                i += 2
                start = i
            } else {
                i += 1
            }
        }
        if start > 0 { pending.removeFirst(start) }
    }

    private func handleEvent(_ block: ArraySlice<UInt8>, now: UInt64) {
        var event = Substring()
        var data = Substring()
        let text = String(decoding: block, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("event:") { event = line.dropFirst(6).drop { $0 == " " } }
            if line.hasPrefix("data:") { data = line.dropFirst(5).drop { $0 == " " } }
        }
        guard event == "put" || event == "patch" else { return }  // keep-alive etc.
        if !gotInitial {
            gotInitial = true
            collector.initial(index)
            return
        }
        guard let seq = Self.integer(after: "\"seq\":", in: data), let t = Self.integer(after: "\"t\":", in: data) else {
            collector.unparsed()
            return
        }
        collector.delivered(index, seq: Int(seq), latency: Int64(now) - Int64(t))
    }

    static func integer(after key: String, in text: Substring) -> Int64? {
        guard let r = text.range(of: key) else { return nil }
        let digits = text[r.upperBound...].prefix { $0.isNumber }
        return Int64(digits)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        collector.error(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        collector.closed()
    }
}

struct FanoutResult {
    var listeners: Int
    var connected: Int
    var setupSeconds: Double
    var writes: Int
    var writeAck: Samples
    var delivery: Samples
    var missed: Int
    var duplicates: Int
    var unparsed: Int
    var closedEarly: Int
    var errors: [String]
}

enum FanoutDriver {
    /// Opens `listeners` streams on `/fanout` in namespace `ns`, listener `i` sending `authorization(i)`, waits for
    /// every initial put, then PUTs (as admin) `writes` values `{"seq":i,"t":<monotonic ns>}` to `/fanout/msg`,
    /// `intervalMs` apart, and waits for the deliveries.
    /// Listener `i` connects to `listenerPorts[i % listenerPorts.count]` (several nodes: a write on the first node
    /// reaches listeners on the others through the cluster's change feed).
    static func run(
        port: Int, listenerPorts: [Int], namespace ns: String, authorization: (Int) -> String, listeners: Int, writes: Int, intervalMs: Int,
        threads: Int
    ) throws -> FanoutResult {
        // A value at the location before anyone listens, so the initial put is non-null.
        let writer = try HTTPConnection(port: port, timeout: 30)
        let seed = try writer.request("PUT", "/fanout.json?ns=\(ns)", body: Array("{\"msg\":{\"seq\":-1,\"t\":0}}".utf8))
        guard seed.status == 200 else { throw BenchError("seeding /fanout: HTTP \(seed.status) \(seed.text)") }

        let collector = FanoutCollector(listeners: listeners, writes: writes)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        defer { try? group.syncShutdownGracefully() }
        var channels: [any Channel] = []
        defer {
            for c in channels { c.close(promise: nil) }
        }
        let setupStart = nowNanos()
        let batch = 100
        var connectErrors: [String] = []
        var index = 0
        while index < listeners {
            let upper = min(index + batch, listeners)
            var futures: [EventLoopFuture<any Channel>] = []
            for i in index..<upper {
                let port = listenerPorts[i % listenerPorts.count]
                let uri = "/fanout.json?ns=\(ns)"
                let credential = authorization(i)
                futures.append(
                    ClientBootstrap(group: group)
                        .channelOption(.socketOption(.tcp_nodelay), value: 1)
                        .connectTimeout(.seconds(10))
                        .channelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                                try channel.pipeline.syncOperations.addHandler(
                                    SSEListenerHandler(
                                        index: i, port: port, uri: uri, authorization: credential, collector: collector))
                            }
                        }
                        .connect(host: "127.0.0.1", port: port))
            }
            for f in futures {
                do { channels.append(try f.wait()) } catch { connectErrors.append("\(error)") }
            }
            // Wait for this batch's initial puts before opening more (bounded).
            let deadline = nowNanos() + 30_000_000_000
            while collector.initialReceived < channels.count, nowNanos() < deadline { usleep(1000) }
            index = upper
        }
        let setupSeconds = Double(nowNanos() - setupStart) / 1e9
        let connected = collector.initialReceived
        guard connected > 0 else {
            throw BenchError("no listener received its initial put; errors: \((connectErrors + collector.state.withLock { $0.errors }).prefix(3))")
        }
        if connected < listeners {
            log("only \(connected)/\(listeners) listeners received their initial put within the time limit")
        }
        usleep(200_000)

        var ack = Samples()
        let start = nowNanos()
        for i in 0..<writes {
            sleep(until: start + UInt64(i) * UInt64(intervalMs) * 1_000_000)
            let t = nowNanos()
            let r = try writer.request("PUT", "/fanout/msg.json?ns=\(ns)", body: Array("{\"seq\":\(i),\"t\":\(t)}".utf8))
            ack.add(nowNanos() - t)
            guard r.status == 200 else { throw BenchError("write \(i): HTTP \(r.status) \(r.text)") }
        }
        // Wait (bounded) for the stragglers.
        let expected = connected * writes
        let waitDeadline = nowNanos() + 10_000_000_000
        while collector.receivedCount(upTo: writes) < expected, nowNanos() < waitDeadline { usleep(10_000) }
        usleep(200_000)  // catch late duplicates

        let closedBeforeEnd = collector.closedCount
        let snapshot = collector.state.withLock { $0 }
        var delivery = Samples()
        var missed = 0
        for (l, row) in snapshot.latency.enumerated() where snapshot.initialDone[l] {
            for v in row {
                if v >= 0 { delivery.add(UInt64(v)) } else { missed += 1 }
            }
        }
        return FanoutResult(
            listeners: listeners, connected: connected, setupSeconds: setupSeconds, writes: writes, writeAck: ack,
            delivery: delivery, missed: missed, duplicates: snapshot.duplicates, unparsed: snapshot.unparsed,
            closedEarly: closedBeforeEnd, errors: connectErrors.prefix(3) + snapshot.errors)
    }
}
