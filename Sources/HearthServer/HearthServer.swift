import Foundation
import HTTPTypes
import HearthAuth
import HearthConsole
import HearthCore
import HearthDatabase
public import HearthFunctions
public import HearthLinks
public import HearthMessaging
public import HearthStorage
public import HearthStore
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
import Synchronization
public import ServiceLifecycle
public import UnixSignals

/// The Hearth HTTP server: the Realtime Database REST + streaming API on one port.
///
/// ```swift
/// let server = HearthServer(configuration: config, stores: SQLiteStoreFactory(folder: "hearth-data"), logger: logger)
/// try await server.application().runService()
/// ```
public struct HearthServer: Sendable {
    /// The settings it was built with.
    public let configuration: ServerConfiguration
    let registry: NamespaceRegistry
    let controller: DatabaseController
    let auth: AuthController?
    let storage: StorageController?
    let links: LinksController?
    let messaging: MessagingController?
    let realtime: RealtimeController
    let functions: FunctionsRuntime?
    let console: ConsoleController
    let admin: AdminController
    let metrics: ServerMetrics
    let logger: Logger
    private let inlineCount = InlineCount()

    /// How many requests were answered on an event loop without a task (see `inlineAnswers`).
    public var requestsAnsweredInline: Int { inlineCount.value.load(ordering: .relaxed) }

    /// A server over `stores` (one store per namespace), with the products it is given: auth, storage
    /// (its rules reloaded from `storageRulesFile`), functions and links; the ones left out answer 404.
    /// `clock` (milliseconds since 1970) is what rules, tokens and functions see as now; `outsideServices` are the
    /// geocoder, smart home and weather provider functions reach as `context.services`.
    public init(
        configuration: ServerConfiguration,
        stores: any StoreFactory,
        logger: Logger,
        auth: AuthService? = nil,
        storage: StorageService? = nil,
        storageRulesFile: String? = nil,
        functions: Functions = Functions(),
        links: LinkService? = nil,
        outsideServices: OutsideServices = OutsideServices(),
        messaging: MessagingService? = nil,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        // Push needs the runtime too: it delivers the `$push` events of the outboxes.
        let runtime = functions.isEmpty && messaging == nil
            ? nil
            : FunctionsRuntime(
                functions: functions, defaultNamespace: configuration.defaultNamespace, auth: auth, storage: storage, links: links, logger: logger,
                services: outsideServices, messaging: messaging, clock: clock)
        self.functions = runtime
        // One policy for every product's credentials, and one cache of checked tokens.
        // Console sessions are signed with a key derived from the admin credential: every node that shares it accepts them.
        let sessions = ConsoleSessions(adminCredential: configuration.adminToken)
        let authenticator = Authenticator(configuration, verifier: auth, sessions: sessions, clock: clock)
        self.auth = auth.map { AuthController(service: $0, configuration: configuration, logger: logger, authenticator: authenticator) }
        self.storage = storage.map {
            StorageController(
                service: $0, configuration: configuration, auth: auth, rules: StorageRulesHolder(path: storageRulesFile) { problem in
                    logger.error("storage rules file not applied, the previous rules stay: \(problem)")
                },
                logger: logger, authenticator: authenticator)
        }
        self.links = links.map { LinksController(service: $0, configuration: configuration, auth: auth, logger: logger, authenticator: authenticator) }
        let wallClock: @Sendable () -> Int64 = clock
        self.configuration = configuration
        self.logger = logger
        self.registry = NamespaceRegistry(
            factory: stores, clock: wallClock, initialRules: .initial(dev: configuration.dev), defaultNamespace: configuration.defaultNamespace,
            limits: NamespaceRegistry.Limits(
                createOnFirstUse: configuration.dev, maxOpen: max(1, configuration.maxOpenNamespaces),
                idleMillis: Int64(configuration.namespaceIdleSeconds) * 1000),
            triggers: runtime, logger: logger)
        let databaseController = DatabaseController(
            configuration: configuration, registry: registry, logger: logger, auth: auth, authenticator: authenticator, clock: clock)
        self.controller = databaseController
        self.messaging = messaging.map {
            MessagingController(service: $0, functions: runtime, database: databaseController, authenticator: authenticator)
        }
        self.realtime = RealtimeController(
            database: controller, logger: logger, partialMessages: PartialMessageBudget(limit: configuration.realtimePartialBytes))
        var products: [String] = []
        if auth != nil { products.append("users") }
        if storage != nil { products.append("storage") }
        if runtime != nil { products.append("functions") }
        if links != nil { products.append("links") }
        if messaging != nil { products.append("messaging") }
        self.console = ConsoleController(
            sessions: sessions, configuration: configuration, project: auth?.projectID ?? configuration.defaultNamespace, products: products, clock: clock)
        let (connections, registry) = (self.realtime.connections, self.registry)
        let metrics = ServerMetrics(connections: { connections.count }, listeners: { registry.listenerCount })
        self.metrics = metrics
        metrics.limits.withLock { $0 = (configuration.limits, configuration.maxOpenNamespaces) }
        metrics.requestLimiter.withLock { [controller] in $0 = RequestLimiter(controller) }
        // `/metrics` for the admin or the metrics token; `/readyz` is ready while the default database opens.
        let defaultNamespace = configuration.defaultNamespace
        metrics.operations.configure(metricsToken: configuration.metricsToken, isAdmin: { authenticator.isAdmin($0) }) {
            do { try await registry.withNamespace(defaultNamespace) { _ in } } catch { return "the database \(defaultNamespace) cannot be opened" }
            return nil
        }
        metrics.operations.sources.wire(storage: storage, functions: runtime)
        self.admin = AdminController(
            database: controller, storage: self.storage, links: self.links, functions: runtime, metrics: metrics, authenticator: authenticator,
            configuration: configuration)
    }

    /// The Hummingbird application; `onServerRunning` receives the bound port.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = Router(context: HearthRequestContext.self)
        let registry = self.registry
        let realtime = self.realtime
        router.get("/.well-known/hearth/health") { _, _ in
            let listeners = registry.listenerCount
            let connections = realtime.connections.count
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\",\"listeners\":\(listeners),\"connections\":\(connections)}")))
        }
        if let documents = auth?.publicKeys {
            // The public keys that verify Hearth's ID tokens, at Hearth's and Google's paths.
            router.get("/.well-known/jwks.json") { _, _ in try await documents.responses().jwks }
            router.get("/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com") { _, _ in try await documents.responses().jwks }
            router.get("/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com") { _, _ in
                try await documents.responses().certificates
            }
        }
        if let links {
            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"] {
                if let response = links.wellKnown(path) { router.get(RouterPath(path)) { _, _ in response } }
            }
        }
        let responder = HearthResponder(routes: routes(wellKnown: router.buildResponder()), console: console, metrics: metrics)
        // Hummingbird's own start-up line would repeat ours; keep its warnings and errors.
        var appLogger = logger
        appLogger.logLevel = max(logger.logLevel, .notice)
        let inline: InlineResponseHandler.Answer? = configuration.inlineAnswers ? { @Sendable head in responder.respondNow(to: head) } : nil
        let count = inlineCount
        let configuration = self.configuration
        // Over TLS (`--tls-cert`): HTTP/2 or HTTP/1.1 by ALPN, the certificate reloaded on SIGHUP (see TLS/).
        if let tls = configuration.tls {
            return tlsApplication(tls, responder: responder, inline: inline, inlineCount: count, logger: appLogger, onServerRunning: onServerRunning)
        }
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                RealtimeServerChannel(
                    responder: responder, realtime: realtime, inline: inline, inlineCount: count, limits: RequestHeadLimits(configuration))
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: started(scheme: "http", then: onServerRunning),
            logger: appLogger
        )
    }

    /// What runs once the server listens: the functions' default public URL (download links they store and send
    /// must lead back here) is set to `scheme://host:port`, then `onServerRunning` gets the bound port.
    func started(scheme: String, then onServerRunning: @escaping @Sendable (Int) async -> Void) -> @Sendable (any Channel) async -> Void {
        let (functions, configuration) = (functions, configuration)
        return { channel in
            let port = channel.localAddress?.port ?? 0
            let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
            functions?.publicURL = configuration.publicURL ?? "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
            await onServerRunning(port)
        }
    }

    /// The server and its stream keeper as one service group. On a shutdown signal the keeper ends
    /// every stream first (services stop in reverse order), then the HTTP server finishes in-flight
    /// requests.
    public func serviceGroup(
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        services backend: [any Service] = [],
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> ServiceGroup {
        // The backend's services (PostgreSQL's change feed) start first and stop last.
        var services: [any Service] = backend + [
            application(onServerRunning: onServerRunning),
            StreamKeeper(
                registry: registry, connections: realtime.connections, seconds: min(configuration.keepAliveSeconds, max(1, configuration.namespaceIdleSeconds)),
                logger: logger),
        ]
        // The overview's history: a reading of the counters every second.
        services.append(MetricsSampler(metrics: metrics))
        // `/metrics`, `/healthz` and `/readyz` without a credential on a second, internal address (`--metrics-listen`).
        if let address = configuration.metricsListen { services.append(metricsApplication(address)) }
        // SIGHUP reloads the TLS certificate and key (and no longer ends the process).
        if let tls = configuration.tls { services.append(CertificateReloader(certificates: tls, logger: logger)) }
        // Writes buffered link clicks every second and once more after the server stopped.
        if let links { services.insert(LinkClickFlusher(recorder: links.service.clicks, store: links.service.store, logger: logger), at: 0) }
        // Last, so that on shutdown it stops first: no new function runs while requests finish.
        if let functions { services.append(FunctionsService(runtime: functions, database: controller.service, logger: logger)) }
        // Very last: on shutdown `/readyz` turns 503 before anything else stops.
        services.append(ReadinessWatcher(endpoints: metrics.operations))
        return ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: gracefulShutdownSignals,
                logger: logger))
    }

    /// Closes every open store (call after the application stopped).
    public func shutdown() async {
        // Realtime clients that connected after the stream keeper closed the others (the server
        // was still accepting): close them too and let their onDisconnect writes finish first.
        realtime.connections.closeAll()
        await realtime.connections.waitUntilEmpty(timeout: .seconds(5))
        if let links {
            do {
                try await links.service.clicks.flush(to: links.service.store)
                try await links.service.store.close()
            } catch {
                logger.error("could not save link click counts at shutdown", metadata: ["hearth.error": "\(error)"])
            }
        }
        await registry.closeAll()
        await functions?.shutdown()
    }
}

/// Sends SSE keep-alives (a failed write is how a silently closed connection is noticed), closes
/// idle namespaces and, on graceful shutdown, ends every stream.
struct StreamKeeper: Service {
    let registry: NamespaceRegistry
    let connections: RealtimeConnections
    let seconds: Int
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(seconds))
                for namespace in registry.openNamespaces { namespace.hub.keepAlive() }
                await registry.closeIdle()
            }
        }
        logger.debug("closing streams for shutdown")
        registry.closeStreams()
        connections.closeAll()
        // Realtime connections are not tasks the HTTP server waits for: wait here until they
        // answered the close (or timed out) and ran their onDisconnect writes.
        await connections.waitUntilEmpty(timeout: .seconds(5))
    }
}
