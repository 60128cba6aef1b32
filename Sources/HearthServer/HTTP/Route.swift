import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

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
    /// Each route's request counters, in the table's order (empty without `metrics`).
    private let counters: [RouteCounters]
    /// Counters of requests no route answered: the console cookie's refusals (`console`), `/metrics` and the health
    /// checks (`operations`), and requests every claiming route passed on (`none`).
    private let consoleCounters, operationsCounters, unroutedCounters: RouteCounters?

    init(routes: [Route], console: ConsoleController? = nil, metrics: ServerMetrics? = nil) {
        self.routes = routes
        self.console = console
        self.metrics = metrics
        counters = metrics.map { m in routes.map { m.http.counters($0.name) } } ?? []
        consoleCounters = metrics?.http.counters("console")
        operationsCounters = metrics?.http.counters("operations")
        unroutedCounters = metrics?.http.counters("none")
        var methods: [HTTPRequest.Method] = []
        for case let inline? in routes.map(\.inline) where !methods.contains(inline.method) { methods.append(inline.method) }
        self.inlineMethods = methods
    }

    func respond(to request: Request, context: HearthRequestContext) async throws -> Response {
        // Marked by `RateLimitHandler`: over a rate limit.
        if let refusal = RequestLimiter.Refusal(marked: request.headers) { return refusal.response(target: request.uri.path) }
        if let refusal = Self.unmarkedRefusal(request, context: context, metrics: metrics) { return refusal.response(target: request.uri.path) }
        guard let metrics else { return try await route(request, context: context).response }
        metrics.countRequest()
        let start = NIODeadline.now().uptimeNanoseconds
        let id = RequestID.of(request.headers, generator: metrics.requestIDs)
        var response: Response
        let answeredBy: RouteCounters?
        do {
            (response, answeredBy) = try await RequestID.$current.withValue(id) {
                if OperationsEndpoints.handles(request.method, request.uri.path) {
                    return (await metrics.operations.respond(to: request, metrics: metrics), operationsCounters)
                }
                let (response, index) = try await route(request, context: context)
                return (response, index.map { counters[$0] } ?? (response.status == .notFound ? unroutedCounters : consoleCounters))
            }
        } catch let error as any HTTPResponseError {
            // Hummingbird's router (the well-known paths) throws its 404s: answered here, so they carry the id too.
            response = try error.response(from: request, context: context)
            answeredBy = unroutedCounters
        } catch {
            unroutedCounters?.record(status: 500, elapsed: NIODeadline.now().uptimeNanoseconds &- start)
            throw error
        }
        answeredBy?.record(status: response.status.code, elapsed: NIODeadline.now().uptimeNanoseconds &- start)
        response.headers[RequestID.header] = id
        return response
    }

    /// The answer and the index of the route that gave it (nil: the console's cookie was refused, or no route answered).
    private func route(_ request: Request, context: HearthRequestContext) async throws -> (response: Response, route: Int?) {
        var request = request
        // The cookie stands for the admin on Hearth's own APIs only: a request for the app's functions (callable or
        // HTTP; user code) is answered as if it had none, so no function ever sees a credential the cookie made.
        if let console, ConsoleController.mayCarrySession(request.headers),
            request.uri.path.hasPrefix("/.hearth/") || routes.first(where: { $0.claim(request.method, request.uri.path) != .none })?.name != "functions"
        {
            switch console.gate(request) {
            case .pass(let gated): request = gated
            case .refuse(let response): return (response, nil)
            }
        }
        let path = request.uri.path
        for (index, route) in routes.enumerated() where route.claim(request.method, path) != .none {
            if let response = try await route.respond(request, context) { return (response, index) }
        }
        return (Response(status: .notFound), nil)
    }

    /// The answer of the route that owns `head`, computed without a task when that route can (the
    /// database's small reads, auth's token refresh); nil sends the request the normal way.
    func respondNow(to head: HTTPRequest) -> InlinePlan? {
        if let refusal = RequestLimiter.Refusal(marked: head.headerFields) { return .reply(refusal.reply(target: head.path)) }
        // Before parsing the URI: a write (most requests that are not reads) is routed once, by `respond`.
        guard inlineMethods.contains(head.method) else { return nil }
        // The console's cookie stands for a credential only `respond` applies.
        if console != nil, ConsoleController.mayCarrySession(head.headerFields) { return nil }
        let uri = URI(head.path ?? "")
        let path = uri.path
        guard let index = routes.firstIndex(where: { $0.claim(head.method, path) != .none }),
            let inline = routes[index].inline, inline.method == head.method
        else { return nil }
        let start = NIODeadline.now().uptimeNanoseconds
        guard let plan = inline.respond(head, uri) else { return nil }
        guard let metrics else { return plan }
        // Counted here when answered here; otherwise `respond` counts it.
        metrics.countRequest()
        let id = RequestID.of(head.headerFields, generator: metrics.requestIDs)
        let counters = counters[index]
        switch plan {
        case .reply(var reply):
            reply.headers[RequestID.header] = id
            counters.record(status: reply.status.code, elapsed: NIODeadline.now().uptimeNanoseconds &- start)
            return .reply(reply)
        case .afterBody(let compute):
            return .afterBody { body, loop in
                compute(body, loop).map { reply in
                    guard var reply else { return nil }
                    reply.headers[RequestID.header] = id
                    counters.record(status: reply.status.code, elapsed: NIODeadline.now().uptimeNanoseconds &- start)
                    return reply
                }
            }
        }
    }
}
