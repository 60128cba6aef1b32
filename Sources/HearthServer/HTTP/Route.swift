import HTTPTypes
import Hummingbird
import HummingbirdCore

/// How surely a route owns a request, judged from its method and path alone (no I/O).
enum RouteClaim: Sendable {
    /// Not this route's.
    case none
    /// This route's: it answers.
    case certain
    /// Perhaps this route's (a link suffix, a public object URL): it answers, or passes the request on
    /// to the next route when what it names does not exist.
    case possible
}

/// One protocol edge in the server's routing table (`HearthServer.routes`). Requests go to the first
/// route that claims them, in the table's order; the same table decides which requests may be
/// answered on the event loop without a task, so the two ways can never disagree.
struct Route: Sendable {
    /// For logs and tests: `database`, `auth`, `storage`, …
    let name: String
    /// Whether a request with this method and path is the route's.
    let claim: @Sendable (HTTPRequest.Method, String) -> RouteClaim
    /// The route's answer; nil passes a ``RouteClaim/possible`` request to the next route.
    let respond: @Sendable (Request, HearthRequestContext) async throws -> Response?
    /// Answers computed without a task (see `InlineResponseHandler`), or nil for the normal way.
    let inline: Inline?

    /// The requests of one method a route may answer on the event loop, and how.
    struct Inline: Sendable {
        /// The only method answered this way; other requests skip the routing table's inline pass
        /// altogether, so a PUT is routed once, not twice.
        let method: HTTPRequest.Method
        /// The answer, or nil for the normal way.
        let respond: @Sendable (HTTPRequest, URI) -> InlinePlan?
    }

    init(
        _ name: String, claim: @escaping @Sendable (HTTPRequest.Method, String) -> RouteClaim, inline: Inline? = nil,
        respond: @escaping @Sendable (Request, HearthRequestContext) async throws -> Response?
    ) {
        self.name = name
        self.claim = claim
        self.respond = respond
        self.inline = inline
    }
}

/// Sends each request to the first route of the table that claims it, after the console's cookie had its say
/// (``ConsoleController/gate(_:)``).
struct HearthResponder: HTTPResponder {
    /// In order; the last one (the database) claims every request.
    let routes: [Route]
    let console: ConsoleController?
    let metrics: ServerMetrics?
    /// The methods some route answers inline (GET, and POST for the token refresh).
    private let inlineMethods: [HTTPRequest.Method]

    init(routes: [Route], console: ConsoleController? = nil, metrics: ServerMetrics? = nil) {
        self.routes = routes
        self.console = console
        self.metrics = metrics
        var methods: [HTTPRequest.Method] = []
        for case let inline? in routes.map(\.inline) where !methods.contains(inline.method) { methods.append(inline.method) }
        self.inlineMethods = methods
    }

    func respond(to request: Request, context: HearthRequestContext) async throws -> Response {
        metrics?.countRequest()
        var request = request
        // The cookie stands for the admin on Hearth's own APIs only: a request for the app's functions (callable or
        // HTTP; user code) is answered as if it had none, so no function ever sees a credential the cookie made.
        if let console, ConsoleController.mayCarrySession(request.headers),
            request.uri.path.hasPrefix("/.hearth/") || routes.first(where: { $0.claim(request.method, request.uri.path) != .none })?.name != "functions"
        {
            switch console.gate(request) {
            case .pass(let gated): request = gated
            case .refuse(let response): return response
            }
        }
        let path = request.uri.path
        for route in routes where route.claim(request.method, path) != .none {
            if let response = try await route.respond(request, context) { return response }
        }
        return Response(status: .notFound)
    }

    /// The answer of the route that owns `head`, computed without a task when that route can (the
    /// database's small reads, auth's token refresh); nil sends the request the normal way.
    func respondNow(to head: HTTPRequest) -> InlinePlan? {
        // Before parsing the URI: a write (most requests that are not reads) is routed once, by `respond`.
        guard inlineMethods.contains(head.method) else { return nil }
        // The console's cookie stands for a credential only `respond` applies.
        if console != nil, ConsoleController.mayCarrySession(head.headerFields) { return nil }
        let uri = URI(head.path ?? "")
        let path = uri.path
        guard let route = routes.first(where: { $0.claim(head.method, path) != .none }),
            let inline = route.inline, inline.method == head.method
        else { return nil }
        let plan = inline.respond(head, uri)
        // Counted here when answered here; otherwise `respond` counts it.
        if plan != nil { metrics?.countRequest() }
        return plan
    }
}
