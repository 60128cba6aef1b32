import AsyncHTTPClient
import Foundation
import HearthServer
import HearthTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// A raw TCP client: writes bytes, collects what comes back, and notices when the server closes.
/// Optionally never reads, so the server's writes pile up (a stalled consumer).
final class RawClient: Sendable {
    let channel: any Channel
    private let collector: Collector

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex(ByteBuffer())

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            _ = received.withLock { $0.writeBuffer(&bytes) }
        }
    }

    init(port: Int, reading: Bool = true) async throws {
        let collector = Collector()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) } }
        if !reading {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: 4096).channelOption(.autoRead, value: false)
        }
        channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        self.collector = collector
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    var text: String { collector.received.withLock { String(buffer: $0) } }

    /// Waits until the server closed the connection (true) or `timeout` passed (false).
    func closed(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while channel.isActive, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !channel.isActive
    }

    func close() async { try? await channel.close() }
}

/// Head and idle timeouts, over-long heads, and stalled stream consumers, against a live server.
@Suite("Connection limits over a live server")
struct ConnectionLimitsLiveTests {
    /// A server whose head and idle timeouts are one second.
    func withShortTimeouts(_ body: @Sendable (Int) async throws -> Void) async throws {
        try await withServer({ c in
            c.requestHeadTimeout = .seconds(1)
            c.idleTimeout = .seconds(1)
        }, body)
    }

    func withServer(_ configure: @Sendable (inout ServerConfiguration) -> Void, _ body: @Sendable (Int) async throws -> Void) async throws {
        let server = LiveServer(dev: false, configure: configure)
        let port = try await server.start()
        do {
            try await body(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("a connection that never finishes its request head is closed after the head timeout")
    func partialHead() async throws {
        try await withShortTimeouts { port in
            let client = try await RawClient(port: port)
            try await client.send("GET /a.json HTTP/1.1\r\nHost: x\r\n")
            #expect(await client.closed(within: .seconds(15)))
            // Nothing arrived at all, on a fresh connection, either.
            let silent = try await RawClient(port: port)
            #expect(await silent.closed(within: .seconds(15)))
            await client.close()
            await silent.close()
        }
    }

    @Test("between requests a kept-alive connection is closed once idle; a request in time is answered")
    func keepAliveIdle() async throws {
        try await withShortTimeouts { port in
            let client = try await RawClient(port: port)
            try await client.send("GET /a.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer owner\r\n\r\n")
            try await Task.sleep(for: .milliseconds(500))
            try await client.send("GET /a.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer owner\r\n\r\n")
            #expect(await client.closed(within: .seconds(15)))
            #expect(client.text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        }
    }

    @Test("a request whose body stops arriving is closed after the idle timeout")
    func stalledBody() async throws {
        try await withShortTimeouts { port in
            let client = try await RawClient(port: port)
            try await client.send("PUT /a.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer owner\r\nContent-Length: 100\r\n\r\n\"abc")
            #expect(await client.closed(within: .seconds(15)))
        }
    }

    @Test("a request target over 16 KiB gets 414, over the head bound too; header fields over 64 KiB get 431")
    func longHeads() async throws {
        try await withLiveServer { port in
            for (target, header, status) in [
                ("/" + String(repeating: "a", count: 100_000) + ".json", "", "414 URI Too Long"),
                ("/a.json?x=" + String(repeating: "b", count: 20_000), "", "414 URI Too Long"),
                ("/a.json", "X-Big: " + String(repeating: "c", count: 70_000) + "\r\n", "431 Request Header Fields Too Large"),
                (
                    "/a.json", (0..<40).map { "X-H\($0): " + String(repeating: "d", count: 2_000) + "\r\n" }.joined(),
                    "431 Request Header Fields Too Large"
                ),
            ] {
                let client = try await RawClient(port: port)
                try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\(header)\r\n")
                #expect(await client.closed(within: .seconds(15)))
                #expect(client.text.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(target.prefix(20)) \(header.prefix(20)): \(client.text.prefix(60))")
                await client.close()
            }
            // Within the bounds: answered as usual.
            let client = try await RawClient(port: port)
            try await client.send("GET /a.json?x=\(String(repeating: "b", count: 10_000)) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(await client.closed(within: .seconds(15)))
            #expect(!client.text.hasPrefix("HTTP/1.1 414") && !client.text.hasPrefix("HTTP/1.1 431"))
        }
    }

    @Test("an open event stream and an open realtime WebSocket outlive the idle timeout")
    func streamsAreNotIdle() async throws {
        try await withShortTimeouts { port in
            let stream = try await RawClient(port: port)
            try await stream.send("GET /s.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer owner\r\n\r\n")
            let socket = try await RawClient(port: port)
            try await socket.send(
                "GET /.ws?v=5&ns=demo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            try await Task.sleep(for: .seconds(3))
            #expect(stream.channel.isActive && socket.channel.isActive)
            #expect(socket.text.hasPrefix("HTTP/1.1 101"))
            var put = HTTPClientRequest(url: "http://127.0.0.1:\(port)/s.json")
            put.method = .PUT
            put.headers.add(name: "Authorization", value: "Bearer owner")
            put.body = .bytes(ByteBuffer(string: "7"))
            _ = try await HTTPClient.shared.execute(put, timeout: .seconds(10))
            let deadline = ContinuousClock.now + .seconds(10)
            while !stream.text.contains(#""data":7"#), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(stream.text.contains(#"data: {"path":"/","data":7}"#))
            await stream.close()
            await socket.close()
        }
    }

    func listeners(_ port: Int) async throws -> Int {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/.well-known/hearth/health")
        request.headers.add(name: "Authorization", value: "Bearer owner")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 16)
        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]
        return json?["listeners"] as? Int ?? -1
    }

    @Test("a stream whose client stops reading is dropped once its waiting events pass the byte budget")
    func stalledStreamDropped() async throws {
        try await withServer({ c in c.streamBufferBytes = 1 << 20 }) { port in try await stalledStream(port) }
    }

    func stalledStream(_ port: Int) async throws {
        let stalled = try await RawClient(port: port, reading: false)
        try await stalled.send("GET /big.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer owner\r\n\r\n")
        for _ in 0..<100 where try await listeners(port) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await listeners(port) == 1)
        // 40 writes of 256 KB: far more than the socket buffers and the 1 MiB budget hold, far
        // fewer than the 4,096 deliveries the count bound allows.
        let value = "\"" + String(repeating: "z", count: 256 * 1024) + "\""
        for _ in 0..<40 {
            var put = HTTPClientRequest(url: "http://127.0.0.1:\(port)/big.json")
            put.method = .PUT
            put.headers.add(name: "Authorization", value: "Bearer owner")
            put.body = .bytes(ByteBuffer(string: value))
            _ = try await HTTPClient.shared.execute(put, timeout: .seconds(10))
        }
        var remaining = try await listeners(port)
        let deadline = ContinuousClock.now + .seconds(15)
        while remaining != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            remaining = try await listeners(port)
        }
        #expect(remaining == 0)
        await stalled.close()
    }
}
