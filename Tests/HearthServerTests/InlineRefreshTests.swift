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
            headers: response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \($0.value)" },
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
}
