import HTTPTypes
import HearthCore
@testable import HearthLinks
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Outside `--dev`: who may make links, and where links may send people.
@Suite("Link allowlist and creators")
struct LinksAllowlistTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    /// Router tests reach the server as `localhost`, so the link domain is `http://localhost`.
    static func service(_ allowlist: LinkAllowlist) -> LinkService {
        LinkService(store: MemoryLinkStore(), domains: [LinkDomain("http://localhost")!], allowlist: allowlist)
    }

    static func body(_ link: String, ofl: String? = nil) -> String {
        var info = #""domainUriPrefix":"http://localhost","link":"\#(link)""#
        if let ofl { info += #","desktopInfo":{"desktopFallbackLink":"\#(ofl)"}"# }
        return #"{"dynamicLinkInfo":{\#(info)}}"#
    }

    @Test("outside --dev only the admin and signed-in users make links; an API key alone is 401")
    func creators() async throws {
        let allow = try LinkAllowlist(patterns: [], hosts: ["app.example.com"])
        try await withRouterClient(auth: AuthRouterTests.service(), links: Self.service(allow)) { c in
            let body = Self.body("https://app.example.com/p/1")
            let anonymous = try await c.send(.post, "/v1/shortLinks?key=k", body, headers: Self.json)
            #expect(anonymous.0 == .unauthorized)
            #expect(anonymous.1.contains("UNAUTHENTICATED"))
            let forged = try await c.send(.post, "/v1/shortLinks?key=k", body, headers: Self.json + [.authorization: "Bearer not.a.token"])
            #expect(forged.0 == .unauthorized)
            #expect(try await c.send(.post, "/v1/shortLinks", body, headers: Self.json + admin).0 == .ok)
            let (_, signUp, _) = try await c.send(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", #"{"email":"a@example.com","password":"secret123"}"#,
                headers: Self.json)
            let idToken = try #require(try JSONValue.parse(signUp)["idToken"]?.stringValue)
            let user = try await c.send(.post, "/v1/shortLinks?key=k", body, headers: Self.json + [.authorization: "Bearer \(idToken)"])
            #expect(user.0 == .ok, "\(user.1)")
        }
        // --links-public-create: an API key is enough again.
        var configuration = ServerConfiguration(port: 0, adminToken: "owner", linksPublicCreate: true)
        configuration.dev = false
        let server = HearthServer(
            configuration: configuration, stores: MemoryStoreFactory(), logger: .init(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }),
            links: Self.service(allow))
        try await server.application().test(.router) { c in
            let made = try await c.send(.post, "/v1/shortLinks?key=k", Self.body("https://app.example.com/p/1"), headers: Self.json)
            #expect(made.0 == .ok)
        }
        await server.shutdown()
    }

    @Test("without patterns only the link domains' and authorized hosts are destinations, when made and when served")
    func defaultHosts() async throws {
        let allow = try LinkAllowlist(patterns: [], hosts: ["app.example.com", "localhost"])
        try await withRouterClient(links: Self.service(allow)) { c in
            let refused = try await c.send(.post, "/v1/shortLinks", Self.body("https://evil.example/phish"), headers: Self.json + admin)
            #expect(refused.0 == .badRequest)
            #expect(refused.1.contains("INVALID_ARGUMENT"))
            #expect(refused.1.contains("allowlist"))
            // A fallback counts as much as the deep link, and user info does not pass for a host.
            #expect(try await c.send(
                .post, "/v1/shortLinks", Self.body("https://app.example.com/p", ofl: "https://evil.example/"), headers: Self.json + admin).0 == .badRequest)
            #expect(try await c.send(
                .post, "/v1/shortLinks", Self.body("https://app.example.com@evil.example/"), headers: Self.json + admin).0 == .badRequest)
            // The long-link form on the link domain is no open redirect any more.
            let desktop: HTTPFields = [.userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"]
            let open = try await c.send(.get, "/?link=https%3A%2F%2Fapp.example.com%2Fp&ofl=https%3A%2F%2Fevil.example%2F", headers: desktop)
            #expect(open.0 == .badRequest)
            #expect(open.2[.location] == nil)
            let deep = try await c.send(.get, "/?link=https%3A%2F%2Fevil.example%2F", headers: desktop)
            #expect(deep.0 == .badRequest)
            #expect(deep.2[.location] == nil)
            let fine = try await c.send(.get, "/?link=https%3A%2F%2Fapp.example.com%2Fp", headers: desktop)
            #expect(fine.0 == .found)
            #expect(fine.2[.location] == "https://app.example.com/p")
        }
    }

    @Test("with patterns a destination must match one whole; a stored link outside them is not served")
    func patterns() async throws {
        let allow = try LinkAllowlist(patterns: [#"https://shop\.example\.com/(p|c)/[0-9]+"#])
        #expect(allow.allows("https://shop.example.com/p/12"))
        #expect(!allow.allows("https://shop.example.com/p/12/../../x"))
        #expect(!allow.allows("https://shop.example.com.evil.io/p/12"))
        #expect(!allow.allows("https://evil.io/?https://shop.example.com/p/12"))
        #expect(throws: (any Error).self) { try LinkAllowlist(patterns: ["(unclosed"]) }
        let store = MemoryLinkStore()
        // A link made before the allowlist existed (anything was allowed then).
        let old = try await LinkService(store: store, domains: [LinkDomain("http://localhost")!]).create(
            link: DynamicLink(prefix: "http://localhost", parameters: ["link": "https://evil.io/"]), option: .short)
        let service = LinkService(store: store, domains: [LinkDomain("http://localhost")!], allowlist: allow)
        try await withRouterClient(links: service) { c in
            #expect(try await c.send(.post, "/v1/shortLinks", Self.body("https://shop.example.com/c/7"), headers: Self.json + admin).0 == .ok)
            #expect(try await c.send(.post, "/v1/shortLinks", Self.body("https://app.example.com/p/1"), headers: Self.json + admin).0 == .badRequest)
            let path = String(old.shortLink.dropFirst("http://localhost".count))
            let served = try await c.send(.get, path, headers: [.userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"])
            #expect(served.0 == .badRequest)
            #expect(served.2[.location] == nil)
        }
    }
}
