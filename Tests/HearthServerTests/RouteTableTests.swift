import HTTPTypes
import HearthFunctions
import HearthStore
import Hummingbird
import Logging
import Synchronization
import Testing

@testable import HearthServer

/// The routing table: which edge claims which request, in the documented order.
@Suite("Route table")
struct RouteTableTests {
    /// The name of the first route that claims `method path`.
    static func owner(_ routes: [Route], _ method: HTTPRequest.Method, _ path: String) -> String? {
        routes.first { $0.claim(method, path) != .none }?.name
    }

    @Test func eachRequestGoesToTheFirstEdgeThatClaimsIt() async throws {
        var functions = Functions()
        try functions.http(.get, "/hooks/{id}") { _, _ in HTTPFunctionResponse(status: .ok) }
        let server = HearthServer(
            configuration: ServerConfiguration(port: 0, adminToken: "owner"), stores: MemoryStoreFactory(),
            logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }), storage: try await StorageRouterTests.storage(),
            functions: functions, links: LinksRouterTests.service())
        let routes = server.routes(wellKnown: Router(context: HearthRequestContext.self).buildResponder())
        #expect(routes.map(\.name) == ["console", "functions", "admin", "well-known", "auth", "storage", "links API", "links", "public objects", "database"])
        let expected: [(HTTPRequest.Method, String, String)] = [
            (.get, "/_/data", "console"),
            (.post, "/.hearth/console/session", "console"),
            (.get, "/hooks/lamp", "functions"),
            (.get, "/.hearth/overview", "admin"),
            (.post, "/.hearth/rules/check", "admin"),
            (.get, "/.hearth/functions/deadLetters", "functions"),
            (.get, "/.well-known/jwks.json", "well-known"),
            (.post, "/securetoken.googleapis.com/v1/token", "auth"),
            (.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", "auth"),
            (.get, "/v0/b/demo.appspot.com/o", "storage"),
            (.post, "/v1/shortLinks", "links API"),
            (.get, "/AbCd", "links"),
            (.get, "/demo.appspot.com/photo.jpg", "public objects"),
            (.get, "/users/alice.json", "database"),
            (.put, "/users/alice.json", "database"),
        ]
        for (method, path, owner) in expected {
            #expect(Self.owner(routes, method, path) == owner, "\(method) \(path)")
        }
        // Not the function's method, and a path no other edge names: the database's (REST answers 404).
        #expect(Self.owner(routes, .post, "/hooks/lamp") == "database")
        await server.shutdown()
    }

    /// The inline pass asks the owning route only for the method that route declares, and skips every other
    /// method before looking at the path.
    @Test func onlyDeclaredMethodsTakeTheInlinePass() {
        let asked = Mutex<[String]>([])
        func route(_ name: String, method: HTTPRequest.Method) -> Route {
            Route(
                name, claim: { _, path in path.hasPrefix("/" + name) ? .certain : .none },
                inline: Route.Inline(method: method) { _, uri in
                    asked.withLock { $0.append("\(name) \(uri.path)") }
                    return nil
                }
            ) { _, _ in nil }
        }
        let responder = HearthResponder(routes: [route("token", method: .post), route("db", method: .get)])
        for (method, path) in [(HTTPRequest.Method.put, "/db/a.json"), (.get, "/token"), (.post, "/db/a.json"), (.delete, "/db/a.json")] {
            #expect(responder.respondNow(to: HTTPRequest(method: method, scheme: nil, authority: nil, path: path)) == nil)
        }
        #expect(asked.withLock { $0 }.isEmpty)
        _ = responder.respondNow(to: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/db/a.json?x=1"))
        _ = responder.respondNow(to: HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/token"))
        #expect(asked.withLock { $0 } == ["db /db/a.json", "token /token"])
    }

    @Test func suffixesAreComparedAsBytes() {
        #expect("/users/alice.json".hasUTF8Suffix(".json"))
        #expect("/é.json".hasUTF8Suffix(".json"))
        #expect(!"/users/alice.jso".hasUTF8Suffix(".json"))
        #expect(!"json".hasUTF8Suffix(".json"))
        #expect(!"/a.JSON".hasUTF8Suffix(".json"))
        #expect("".hasUTF8Suffix(""))
        #expect("/a/b.json"[...].dropLast(0).hasUTF8Suffix("b.json"))
    }
}
