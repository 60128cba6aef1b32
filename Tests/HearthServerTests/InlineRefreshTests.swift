import AsyncHTTPClient
import Foundation
import HearthAuth
import HearthCore
import HearthSQLite
import HearthStore
import HearthTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import HearthServer

/// Token refreshes answered on the event loop must be byte for byte what Hummingbird's responder answers, success and
/// error alike. Both servers share one auth service (one key, one account store, one clock), so even the ID tokens
/// must be identical: RS256 signatures are deterministic.
@Suite("Token refreshes answered on the event loop")
struct InlineRefreshTests {
    final class Clock: Sendable {
        let millis = Atomic<Int64>(1_795_400_000_000)
        func advance(seconds: Int64) { millis.add(seconds * 1000, ordering: .relaxed) }
    }

    static func post(_ port: Int, _ target: String, body: String, headers: [(String, String)] = [])
        async throws -> InlineReadTests.Answer
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(target)")
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return InlineReadTests.Answer(
            status: Int(response.status.code),
            headers: response.headers.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }.map { "\($0.name.lowercased()): \($0.value)" },
            body: String(buffer: bytes))
    }

    static let token = "/securetoken.googleapis.com/v1/token"
    static let form = [("Content-Type", "application/x-www-form-urlencoded")]

    @Test(arguments: ["memory", "sqlite"])
    func inlineRefreshesEqualTheResponders(backend: String) async throws {
        let clock = Clock()
        let store: any AccountStore
        if backend == "memory" {
            store = MemoryAccountStore()
        } else {
            let folder = NSTemporaryDirectory() + "hearth-inline-refresh-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            store = try SQLiteAccountStore(path: folder + "/accounts.sqlite")
        }
        let auth = AuthService(
            projectID: "demo", store: store, key: AuthRouterTests.key, hasher: PasswordHasher(rounds: 1 << 4),
            clock: { clock.millis.load(ordering: .relaxed) })
        let inline = LiveServer(stores: MemoryStoreFactory(), dev: false, auth: auth)
        let plain = LiveServer(stores: MemoryStoreFactory(), dev: false, auth: auth, inlineAnswers: false)
        try await InlineReadTests.withBoth(inline, plain) { inlinePort, plainPort in
            try await Self.compare(clock: clock, inline: inline, inlinePort: inlinePort, plainPort: plainPort)
            #expect(await plain.requestsAnsweredInline == 0)
        }
    }

    static func compare(clock: Clock, inline: LiveServer, inlinePort: Int, plainPort: Int) async throws {
        let signUp = try await post(
            plainPort, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            body: #"{"email":"ada@example.com","password":"secret123","returnSecureToken":true}"#,
            headers: [("Content-Type", "application/json")])
        #expect(signUp.status == 200, "\(signUp)")
        let account = try JSONValue.parse(signUp.body)
        let refreshToken = try #require(account["refreshToken"]?.stringValue)
        let uid = try #require(account["localId"]?.stringValue)

        /// Sends the request to the inline server first (so it meets a due `lastRefreshAt` first), then to the plain one.
        func same(_ target: String, _ body: String, _ headers: [(String, String)] = form, inlined: Bool, _ note: String) async throws {
            let before = await inline.requestsAnsweredInline
            let actual = try await post(inlinePort, target, body: body, headers: headers)
            let answered = await inline.requestsAnsweredInline - before
            let expected = try await post(plainPort, target, body: body, headers: headers)
            #expect(actual == expected, "\(note)")
            #expect(answered == (inlined ? 1 : 0), "\(note): answered inline \(answered)")
        }

        let key = token + "?key=k"
        try await same(key, "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: true, "form")
        let valid = try await post(inlinePort, key, body: "grant_type=refresh_token&refresh_token=\(refreshToken)", headers: form)
        let idToken = try #require(try JSONValue.parse(valid.body)["id_token"]?.stringValue)
        #expect(AuthRouterTests.key.verifiedPayload(idToken)?["user_id"]?.stringValue == uid)

        let json = [("Content-Type", "application/json")]
        try await same(key, #"{"grant_type":"refresh_token","refresh_token":"\#(refreshToken)"}"#, json, inlined: true, "JSON")
        try await same(key, #"{"grantType":"refresh_token","refreshToken":"\#(refreshToken)"}"#, json, inlined: true, "camelCase JSON")
        try await same(key, "refresh_token=\(refreshToken)", inlined: true, "no grant type")
        try await same(key, "grant_type=password&refresh_token=\(refreshToken)", inlined: true, "wrong grant type")
        try await same(key, "grant_type=refresh_token", inlined: true, "no refresh token")
        try await same(key, "grant_type=refresh_token&refresh_token=unknown", inlined: true, "unknown refresh token")
        try await same(token, "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: true, "no API key")
        try await same(
            token, "grant_type=refresh_token&refresh_token=\(refreshToken)", form + [("X-Goog-Api-Key", "k")], inlined: true, "key header")
        try await same(
            key, "grant_type=refresh_token&refresh_token=\(refreshToken)", form + [("Authorization", "Bearer nope")], inlined: true,
            "bad bearer")
        try await same(
            token, "grant_type=refresh_token&refresh_token=\(refreshToken)", form + [("Authorization", "Bearer owner")], inlined: true,
            "admin without key")
        try await same(key, "{not json", json, inlined: true, "bad JSON")
        try await same(key + "&x=%zz", "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: true, "odd query")

        // lastRefreshAt is due: the inline server leaves the refresh to the responder, which writes it.
        clock.advance(seconds: 120)
        try await same(key, "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: false, "lastRefreshAt due")
        let lookup = try await post(
            plainPort, "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", body: #"{"idToken":"\#(idToken)"}"#, headers: json)
        #expect(lookup.body.contains(#""lastRefreshAt":"2026-11-23T"#), "\(lookup.body)")
        try await same(key, "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: true, "written once, not again")

        // Revoked and disabled users are refused inline too.
        let update = try await post(
            plainPort, "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:update", body: #"{"localId":"\#(uid)","disableUser":true}"#,
            headers: json + [("Authorization", "Bearer owner")])
        #expect(update.status == 200, "\(update)")
        try await same(key, "grant_type=refresh_token&refresh_token=\(refreshToken)", inlined: true, "disabled")
    }

    #if canImport(Glibc)
    /// Sends `bytes` on one new connection and reads until `count` responses have begun (or 10 s passed).
    static func exchange(port: Int, _ bytes: [UInt8], responses count: Int) throws -> [(status: Int, body: String)] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        try #require(sent == bytes.count)
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let answers = Self.responses(in: received), answers.count >= count { return answers }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return Self.responses(in: received) ?? [] }
            received += String(decoding: buffer[0..<n], as: UTF8.self)
        }
    }

    /// The complete HTTP/1.1 responses in `text` (status and body, by Content-Length); nil if the last is incomplete.
    static func responses(in text: String) -> [(status: Int, body: String)]? {
        var rest = Substring(text)
        var out: [(status: Int, body: String)] = []
        while !rest.isEmpty {
            guard rest.hasPrefix("HTTP/1.1 "), let headerEnd = rest.range(of: "\r\n\r\n") else { return nil }
            let head = rest[..<headerEnd.lowerBound]
            let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            let length = lengthLine.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            guard rest.utf8.distance(from: headerEnd.upperBound, to: rest.endIndex) >= length else { return nil }
            let bodyEnd = rest.utf8.index(headerEnd.upperBound, offsetBy: length)
            out.append((Int(head.dropFirst(9).prefix(3)) ?? 0, String(rest[headerEnd.upperBound..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return out
    }

    /// Pipelined on one connection, refreshes (awaited off the loop), reads answered here and writes passed on must
    /// come back in request order.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = LiveServer(stores: MemoryStoreFactory(), dev: false, auth: AuthRouterTests.service())
        let port = try await server.start()
        do {
            let signUp = try await Self.post(
                port, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                body: #"{"email":"pipe@example.com","password":"secret123","returnSecureToken":true}"#,
                headers: [("Content-Type", "application/json")])
            let refreshToken = try #require(try JSONValue.parse(signUp.body)["refreshToken"]?.stringValue)
            try await InlineReadTests.put(port, "/a.json", #""x""#)
            func refresh(_ token: String) -> String {
                let body = "grant_type=refresh_token&refresh_token=\(token)"
                return "POST \(Self.token)?key=k HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            let get = "GET /a.json HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer owner\r\n\r\n"
            let put = "PUT /b.json HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer owner\r\nContent-Length: 3\r\n\r\n\"y\""
            let before = await server.requestsAnsweredInline
            let answers = try Self.exchange(
                port: port, Array((refresh(refreshToken) + get + refresh("unknown") + put + get + refresh(refreshToken)).utf8), responses: 6)
            try #require(answers.count == 6, "\(answers)")
            #expect(answers.map(\.status) == [200, 200, 400, 200, 200, 200])
            #expect(answers[0].body.hasPrefix(#"{"access_token":"#))
            #expect(answers[1].body == #""x""#)
            #expect(answers[2].body.contains("INVALID_REFRESH_TOKEN"))
            #expect(answers[3].body == #""y""#)
            #expect(answers[4].body == #""x""#)
            #expect(answers[5].body.hasPrefix(#"{"access_token":"#))
            // The first three at least were answered by the inline handler (the rest depend on when the PUT ended).
            #expect(await server.requestsAnsweredInline - before >= 3)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
    #endif
}
