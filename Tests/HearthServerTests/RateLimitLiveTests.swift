import AsyncHTTPClient
import HearthTesting
import NIOCore
import NIOHTTP1
import Testing

@testable import HearthServer

/// The address limit on a live server, both ways a request can be answered: on the event loop and through
/// Hummingbird's responder (`inlineAnswers` off).
@Suite("Rate limits over a live server")
struct RateLimitLiveTests {
    /// Status, `Retry-After` and body of a request.
    static func fetch(_ port: Int, _ target: String, method: HTTPMethod = .GET, admin: Bool = false) async throws -> (Int, String?, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(target)")
        request.method = method
        if method == .PUT { request.body = .bytes(ByteBuffer(string: "1")) }
        if admin { request.headers.add(name: "Authorization", value: "Bearer owner") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "retry-after"), String(buffer: body))
    }

    /// Three requests a minute from one address: the fourth is refused with 429 on either path, the admin is not.
    @Test(arguments: [true, false])
    func fourthRequestIsRefused(inline: Bool) async throws {
        let server = LiveServer(inlineAnswers: inline) { $0.limits.ip = RateLimit(requests: 3, seconds: 60, burst: 3) }
        let port = try await server.start()
        do {
            #expect(try await Self.fetch(port, "/a.json", method: .PUT, admin: true).0 == 200)
            let before = await server.requestsAnsweredInline
            for _ in 0..<3 { #expect(try await Self.fetch(port, "/a.json").0 == 200) }
            let (status, retryAfter, body) = try await Self.fetch(port, "/a.json")
            #expect(status == 429)
            #expect(retryAfter == "20")  // a token every 20 s
            #expect(body.hasPrefix(#"{"error":"Too many requests from this address"#))
            #expect(try await Self.fetch(port, "/b.json", method: .PUT).0 == 429)
            #expect(try await Self.fetch(port, "/a.json", admin: true).0 == 200)
            let answeredInline = await server.requestsAnsweredInline - before
            // Inline: the three reads, the two refusals and the admin's read; otherwise none.
            #expect(answeredInline == (inline ? 6 : 0))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
