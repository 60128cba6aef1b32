import HTTPTypes
import HearthFunctions
import HearthStore
import Hummingbird
import Logging
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
        #expect(routes.map(\.name) == ["functions", "well-known", "auth", "storage", "links API", "links", "public objects", "database"])
        let expected: [(HTTPRequest.Method, String, String)] = [
            (.get, "/hooks/lamp", "functions"),
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
}
