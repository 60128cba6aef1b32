import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// `/metrics`, `/healthz` and `/readyz`: what an operator's monitoring reads. Answered before the routing table, so
/// these three paths are the server's own (no function, link or database path can take them).
///
/// `/metrics` needs the admin credential or the metrics token (`Authorization: Bearer …`). The health checks answer
/// anyone: load balancers and orchestrators probe without credentials, and the answers say no more than "up" or
/// "not ready".
final class OperationsEndpoints: Sendable {
    /// What the server wires in after it is built (``configure(metricsToken:isAdmin:ready:)``).
    private struct Wiring: Sendable {
        /// The separate credential for `/metrics` (nil: only the admin credential).
        var metricsToken: String?
        /// Whether a bearer token is the admin credential.
        var isAdmin: @Sendable (String?) -> Bool = { _ in false }
        /// Nil when the stores answer, otherwise why not.
        var ready: @Sendable () async -> String? = { nil }
    }

    /// The wiring, set once when the server is built.
    private let wiring = Mutex(Wiring())
    /// Set when graceful shutdown began: `/readyz` answers 503 from then on.
    let shuttingDown = Atomic<Bool>(false)
    /// The products a scrape reads (storage usage, function outboxes).
    let sources = ScrapeSources()

    /// Endpoints that refuse `/metrics` to everyone until configured.
    init() {}

    /// Sets who may read `/metrics` and how readiness is checked.
    func configure(
        metricsToken: String?, isAdmin: @escaping @Sendable (String?) -> Bool, ready: @escaping @Sendable () async -> String?
    ) {
        wiring.withLock { $0 = Wiring(metricsToken: metricsToken, isAdmin: isAdmin, ready: ready) }
    }

    /// Whether a request with this method and path is one of these endpoints.
    static func handles(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        (method == .get || method == .head) && (path == "/metrics" || path == "/healthz" || path == "/readyz")
    }

    /// The answer to a request ``handles(_:_:)`` accepted. `credentialRequired` false is for the separate metrics
    /// listener (`--metrics-listen`), whose address is meant to be internal.
    func respond(to request: Request, metrics: ServerMetrics, credentialRequired: Bool = true) async -> Response {
        switch request.uri.path {
        case "/healthz":
            return Self.text(.ok, "ok\n")
        case "/readyz":
            if shuttingDown.load(ordering: .relaxed) { return Self.text(.serviceUnavailable, "shutting down\n") }
            let ready = wiring.withLock { $0.ready }
            if let problem = await ready() { return Self.text(.serviceUnavailable, "not ready: \(problem)\n") }
            return Self.text(.ok, "ready\n")
        default:
            let w = wiring.withLock { $0 }
            let token = request.authorizationToken()
            let allowed = w.isAdmin(token) || (w.metricsToken.flatMap { expected in token.map { !expected.isEmpty && constantTimeEquals($0, expected) } } ?? false)
            guard allowed || !credentialRequired else {
                var response = Self.text(.unauthorized, "The admin credential or the metrics token is required.\n")
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            let products = MetricsPage.renderProducts(await sources.read())
            var response = Self.text(.ok, MetricsPage.render(metrics) + products)
            response.headers[.contentType] = PrometheusText.contentType
            return response
        }
    }

    /// A plain-text answer that no cache keeps.
    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Marks the server as shutting down as soon as graceful shutdown begins, so `/readyz` turns 503 while requests
/// still finish and a load balancer stops sending new ones. Added last to the service group: it is told first.
struct ReadinessWatcher: Service {
    /// Whose flag to set.
    let endpoints: OperationsEndpoints

    /// Waits for graceful shutdown (or cancellation), then sets the flag.
    func run() async throws {
        try? await gracefulShutdown()
        endpoints.shuttingDown.store(true, ordering: .relaxed)
    }
}
