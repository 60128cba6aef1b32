import Foundation
import HTTPTypes
import HearthConsole
import HearthFunctions
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The console's sessions and what its cookie may do on the way to the products.
@Suite("Console")
struct ConsoleTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSessionIsAcceptedUntilItExpires() {
        let sessions = ConsoleSessions(adminCredential: "s3cret")
        let session = sessions.open(now: Self.t0)
        #expect(sessions.check(session.cookie, now: Self.t0) == session)
        #expect(sessions.check(session.cookie, now: Self.t0 + ConsoleSessions.lifetime - 1) != nil)
        #expect(sessions.check(session.cookie, now: Self.t0 + ConsoleSessions.lifetime) == nil)
        // Another session has another CSRF token.
        #expect(sessions.open(now: Self.t0).csrfToken != session.csrfToken)
    }

    @Test func forgedAlteredOrForeignCookiesAreRefused() {
        let sessions = ConsoleSessions(adminCredential: "s3cret")
        let cookie = sessions.open(now: Self.t0).cookie
        let parts = cookie.split(separator: ".").map(String.init)
        // Signed with another credential: another server's, or this one's before the token changed.
        #expect(ConsoleSessions(adminCredential: "other").check(cookie, now: Self.t0) == nil)
        // A later expiry with the old signature.
        var payload = Array(Data(base64Encoded: Self.padded(parts[0]))!)
        payload[23] &+= 1
        let extended = Data(payload).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(sessions.check(extended + "." + parts[1], now: Self.t0) == nil)
        for bad in ["", ".", parts[0], parts[0] + ".", "." + parts[1], cookie + "x", cookie + ".x", "!!!!." + parts[1], String(repeating: "A", count: 500)] {
            #expect(sessions.check(bad, now: Self.t0) == nil, "\(bad)")
        }
    }

    @Test func everyNodeSharingTheCredentialAcceptsTheSession() {
        // Two nodes of a cluster: separate processes, one admin credential.
        let session = ConsoleSessions(adminCredential: "s3cret").open(now: Self.t0)
        let other = ConsoleSessions(adminCredential: "s3cret")
        #expect(other.check(session.cookie, now: Self.t0)?.csrfToken == session.csrfToken)
    }

    @Test func signingOutEndsTheSessionOnly() {
        let sessions = ConsoleSessions(adminCredential: "s3cret")
        let a = sessions.open(now: Self.t0)
        let b = sessions.open(now: Self.t0)
        sessions.revoke(a.cookie, now: Self.t0)
        #expect(sessions.check(a.cookie, now: Self.t0) == nil)
        #expect(sessions.check(b.cookie, now: Self.t0) != nil)
    }

    @Test func theCSRFTokenMustMatchExactly() {
        let sessions = ConsoleSessions(adminCredential: "s3cret")
        let session = sessions.open(now: Self.t0)
        #expect(sessions.csrfMatches(session.csrfToken, session))
        #expect(!sessions.csrfMatches(nil, session))
        #expect(!sessions.csrfMatches("", session))
        #expect(!sessions.csrfMatches(String(session.csrfToken.dropLast()), session))
        #expect(!sessions.csrfMatches(sessions.open(now: Self.t0).csrfToken, session))
    }

    @Test func everyFileOfTheConsoleIsCompiledIn() {
        #expect(ConsoleAssets.paths.contains("index.html"))
        #expect(ConsoleAssets.paths.contains("js/app.js"))
        #expect(ConsoleAssets.shell.contentType == "text/html; charset=utf-8")
        for page in ["overview", "data", "rules", "users", "storage", "functions", "links"] {
            #expect(ConsoleAssets.asset("js/pages/\(page).js") != nil, "\(page)")
        }
        #expect(ConsoleAssets.contentType(for: "a/b.css") == "text/css; charset=utf-8")
        #expect(ConsoleAssets.contentType(for: "a.png") == nil)
    }

    // MARK: Through the server

    static func withServer(dev: Bool = false, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let server = HearthServer(
            configuration: ServerConfiguration(port: 0, adminToken: "s3cret", dev: dev), stores: MemoryStoreFactory(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.application().test(.router) { client in try await body(client) }
        await server.shutdown()
    }

    static func padded(_ s: String) -> String {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return t
    }

    /// Signs in with `credential`; returns the cookie header to send and the CSRF token.
    static func signIn(_ client: any TestClientProtocol, _ credential: String = "s3cret") async throws -> (cookie: String, csrf: String) {
        let (status, body, headers) = try await client.send(.post, "/.hearth/console/session", #"{"credential":"\#(credential)"}"#, headers: [:])
        #expect(status == .ok)
        let setCookie = try #require(headers[.setCookie])
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        #expect(setCookie.contains("Path=/"))
        #expect(!setCookie.contains("Secure"))
        let cookie = String(setCookie.split(separator: ";")[0])
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return (cookie, try #require(json?["csrfToken"] as? String))
    }

    @Test func pagesNeedASessionAndTheCookieIsTheAdminOnlyWithItsCSRFTokenForChanges() async throws {
        try await Self.withServer { client in
            let (status, _, headers) = try await client.send(.get, "/_/data?path=/a", headers: [:])
            #expect(status == .seeOther)
            #expect(headers[.location] == "/_/login?next=/_/data%3Fpath%3D/a")
            #expect(try await client.send(.post, "/.hearth/console/session", #"{"credential":"wrong"}"#, headers: [:]).0 == .unauthorized)
            #expect(try await client.send(.post, "/.hearth/console/session", "not json", headers: [:]).0 == .badRequest)

            let (cookie, csrf) = try await Self.signIn(client)
            let page = try await client.send(.get, "/_/data", headers: [.cookie: cookie])
            #expect(page.0 == .ok)
            #expect(page.1.contains(#"<meta name="hearth-csrf" content="\#(csrf)">"#))
            #expect(page.2[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
            #expect(try await client.send(.get, "/_/login", headers: [.cookie: cookie]).0 == .seeOther)

            // Reads with the cookie alone; changes with the CSRF token too.
            #expect(try await client.send(.get, "/.json", headers: [.cookie: cookie]).0 == .ok)
            #expect(try await client.send(.get, "/.json", headers: [:]).0 == .unauthorized)
            let refused = try await client.send(.put, "/a.json", "1", headers: [.cookie: cookie])
            #expect(refused.0 == .forbidden)
            #expect(refused.1.contains("CSRF"))
            let csrfHeader = HTTPField.Name("X-Hearth-CSRF")!
            #expect(try await client.send(.put, "/a.json", "1", headers: [.cookie: cookie, csrfHeader: "x" + csrf]).0 == .forbidden)
            #expect(try await client.send(.put, "/a.json", "1", headers: [.cookie: cookie, csrfHeader: csrf]).0 == .ok)
            #expect(try await client.send(.get, "/a.json", headers: [.cookie: "other=1; " + cookie]).1 == "1")

            // A request that names its own credential is answered as that credential, cookie or not.
            #expect(try await client.send(.put, "/a.json", "2", headers: [.cookie: cookie, .authorization: "Bearer s3cret"]).0 == .ok)
            #expect(try await client.send(.get, "/a.json", headers: [.cookie: cookie, .authorization: "Bearer wrong"]).0 == .unauthorized)

            // Signing out needs the token too, then the cookie stands for nothing.
            #expect(try await client.send(.delete, "/.hearth/console/session", headers: [.cookie: cookie]).0 == .forbidden)
            let out = try await client.send(.delete, "/.hearth/console/session", headers: [.cookie: cookie, csrfHeader: csrf])
            #expect(out.0 == .noContent)
            #expect(out.2[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.send(.get, "/.json", headers: [.cookie: cookie]).0 == .unauthorized)
            #expect(try await client.send(.get, "/.hearth/console/session", headers: [.cookie: cookie]).0 == .unauthorized)
            #expect(try await client.send(.get, "/_/data", headers: [.cookie: cookie]).0 == .seeOther)
        }
    }

    @Test func theAppsFunctionsNeverSeeACredentialTheCookieMade() async throws {
        var functions = Functions()
        try functions.http(.post, "/hooks/{id}") { request, _ in
            HTTPFunctionResponse.text(request.headers[.authorization] ?? "none")
        }
        let server = HearthServer(
            configuration: ServerConfiguration(port: 0, adminToken: "s3cret"), stores: MemoryStoreFactory(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), functions: functions)
        try await server.application().test(.router) { client in
            let (cookie, csrf) = try await Self.signIn(client)
            let csrfHeader = HTTPField.Name("X-Hearth-CSRF")!
            let answer = try await client.send(.post, "/hooks/lamp", "{}", headers: [.cookie: cookie, csrfHeader: csrf])
            #expect(answer.0 == .ok)
            #expect(answer.1 == "none")
            // Not even a CSRF refusal: the cookie plays no part there.
            #expect(try await client.send(.post, "/hooks/lamp", "{}", headers: [.cookie: cookie]).1 == "none")
            // The functions' admin API is Hearth's own: the cookie counts there.
            #expect(try await client.send(.get, "/.hearth/functions", headers: [.cookie: cookie]).0 == .ok)
            #expect(try await client.send(.get, "/.hearth/functions", headers: [:]).0 == .unauthorized)
        }
        await server.shutdown()
    }

    @Test func devModeSignsStraightIn() async throws {
        try await Self.withServer(dev: true) { client in
            let (status, body, headers) = try await client.send(.get, "/_/overview", headers: [:])
            #expect(status == .ok)
            #expect(headers[.setCookie]?.hasPrefix(ConsoleSessions.cookieName + "=") == true)
            #expect(body.contains(#"<meta name="hearth-dev" content="true">"#))
            // And the sign-in form takes an empty credential.
            _ = try await Self.signIn(client, "")
        }
    }

    @Test func filesAreServedWithTheirTypeAndRevalidated() async throws {
        try await Self.withServer { client in
            let (status, body, headers) = try await client.send(.get, "/_/assets/js/app.js", headers: [:])
            #expect(status == .ok)
            #expect(headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(body.utf8.count == ConsoleAssets.asset("js/app.js")?.bytes.count)
            let etag = try #require(headers[.eTag])
            #expect(try await client.send(.get, "/_/assets/js/app.js", headers: [.ifNoneMatch: etag]).0 == .notModified)
            #expect(try await client.send(.get, "/_/assets/nothing.js", headers: [:]).0 == .notFound)
            #expect(try await client.send(.get, "/_/assets/../admin-token", headers: [:]).0 == .notFound)
            #expect(try await client.send(.get, "/_", headers: [:]).2[.location] == "/_/overview")
        }
    }
}
