import AsyncHTTPClient
import Foundation
import HearthTesting
import NIOCore
import NIOHTTP1
import Testing

/// Streams over a real socket: events in commit order, and listeners released when clients leave.
@Suite("SSE over a live server")
struct StreamingLiveTests {
    func get(_ port: Int, _ path: String, accept: String? = nil) -> HTTPClientRequest {
        var req = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        req.headers.add(name: "Authorization", value: "Bearer owner")
        if let accept { req.headers.add(name: "Accept", value: accept) }
        return req
    }

    func listeners(_ port: Int) async throws -> Int {
        let response = try await HTTPClient.shared.execute(get(port, "/.well-known/hearth/health"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 16)
        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]
        return json?["listeners"] as? Int ?? -1
    }

    @Test func eventsArriveInCommitOrderAndClosedClientsAreReleased() async throws {
        try await withLiveServer { port in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            // A failure below must still shut the client down: one dropped unshut ends the whole test process.
            do {
                try await streamAndRelease(port, client)
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// Reads the stream's events, then shuts `client` down and waits for the server to drop the listener.
    func streamAndRelease(_ port: Int, _ client: HTTPClient) async throws {
        do {
            let response = try await client.execute(get(port, "/s.json", accept: "text/event-stream"), timeout: .seconds(30))
            #expect(response.headers.first(name: "Content-Type") == "text/event-stream; charset=utf-8")
            #expect(response.headers.first(name: "Connection")?.lowercased() == "keep-alive")
            var received = ""
            var body = response.body.makeAsyncIterator()
            received += String(buffer: try #require(try await body.next()))
            #expect(received == "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n")
            #expect(try await listeners(port) == 1)
            for i in 0..<5 {
                var put = get(port, "/s/n.json")
                put.method = .PUT
                put.body = .bytes(ByteBuffer(string: "\(i)"))
                _ = try await HTTPClient.shared.execute(put, timeout: .seconds(10))
            }
            let expected = (0..<5).map { "event: put\ndata: {\"path\":\"/n\",\"data\":\($0)}\n\n" }.joined()
            var events = ""
            while events.count < expected.count, let chunk = try await body.next() { events += String(buffer: chunk) }
            #expect(events == expected)
            // The client goes away without the server writing anything more: the listener must go too.
            try await client.shutdown()
            var remaining = try await listeners(port)
            let deadline = ContinuousClock.now + .seconds(10)
            while remaining != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                remaining = try await listeners(port)
            }
            #expect(remaining == 0)
        }
    }
}
