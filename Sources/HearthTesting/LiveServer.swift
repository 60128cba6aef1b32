public import HearthAuth
public import HearthDatabase
public import HearthFunctions
public import HearthMessaging
public import HearthServer
public import HearthStorage
public import HearthStore
import Hummingbird
public import Logging
public import ServiceLifecycle

/// Runs a real Hearth server on a free port for the duration of `body`.
///
/// ```swift
/// try await withLiveServer(stores: MemoryStoreFactory()) { port in
///     // talk HTTP to 127.0.0.1:port
/// }
/// ```
public func withLiveServer<R: Sendable>(
    stores: any StoreFactory = MemoryStoreFactory(),
    adminToken: String = "owner",
    indexPolicy: IndexPolicy = .enforce,
    logger: Logger = Logger(label: "hearth-test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: @Sendable (Int) async throws -> R
) async throws -> R {
    let server = LiveServer(stores: stores, dev: false, adminToken: adminToken, indexPolicy: indexPolicy, logger: logger)
    let port = try await server.start()
    do {
        let result = try await body(port)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A real Hearth server that a test can stop and start again on the same port with the same
/// data (for offline and reconnection tests).
///
/// ```swift
/// let server = LiveServer(stores: SQLiteStoreFactory(folder: dir))
/// let port = try await server.start()
/// await server.stop()                 // clients see the connection drop
/// _ = try await server.start(port: port)
/// ```
public actor LiveServer {
    /// Where the server's namespaces live; kept across stop and start, so data survives a restart.
    public let stores: any StoreFactory
    /// The configuration each start uses (the port is the one passed to ``start(port:)``).
    public let configuration: ServerConfiguration
    private let auth: AuthService?
    private let storage: StorageService?
    private let functions: Functions
    private let outsideServices: OutsideServices
    private let messaging: MessagingService?
    private let logger: Logger
    private let services: [any Service]
    private var running: (server: HearthServer, group: ServiceGroup, task: Task<Void, any Error>)?

    /// A stopped server. It listens on 127.0.0.1, in `--dev` mode unless `dev` is false; `auth`,
    /// `storage` and `functions` are the products it serves beside the database (none by default),
    /// `outsideServices` are what its functions reach as `context.services` (doubles such as ``FixedWeather``, or
    /// clients pointed at a ``FakeOutsideServer``), `services` run with it (a PostgreSQL change feed), `messaging`
    /// sends push notifications (clients pointed at an ``APNsDouble`` and an ``FCMDouble``), and `configure` adjusts
    /// anything else.
    public init(
        stores: any StoreFactory = MemoryStoreFactory(), dev: Bool = true, adminToken: String = "owner",
        indexPolicy: IndexPolicy = .enforce, auth: AuthService? = nil, storage: StorageService? = nil,
        functions: Functions = Functions(), outsideServices: OutsideServices = OutsideServices(), inlineAnswers: Bool = true,
        services: [any Service] = [], messaging: MessagingService? = nil,
        logger: Logger = Logger(label: "hearth-test", factory: { _ in SwiftLogNoOpLogHandler() }),
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) {
        self.stores = stores
        self.services = services
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, adminToken: adminToken, indexPolicy: indexPolicy, dev: dev, inlineAnswers: inlineAnswers)
        configure(&configuration)
        self.configuration = configuration
        self.auth = auth
        self.storage = storage
        self.functions = functions
        self.outsideServices = outsideServices
        self.messaging = messaging
        self.logger = logger
    }

    /// Starts the server (on `port`, or a free one) and returns the port it listens on.
    public func start(port: Int = 0) async throws -> Int {
        precondition(running == nil, "already running")
        var configuration = self.configuration
        configuration.port = port
        let server = HearthServer(
            configuration: configuration, stores: stores, logger: logger, auth: auth, storage: storage, functions: functions,
            outsideServices: outsideServices, messaging: messaging)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let group = server.serviceGroup(gracefulShutdownSignals: [], services: services) { port in portContinuation.yield(port) }
        let task = Task { try await group.run() }
        running = (server, group, task)
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else { throw CancellationError() }
        return bound
    }

    /// Creates a namespace on the running server: outside `--dev` only the default one exists until
    /// an admin creates others. Starts locked unless `rules` are given.
    public func createNamespace(_ name: String, rules: String? = nil) async throws {
        guard let running else { preconditionFailure("the server is not running") }
        try await running.server.createNamespace(name, rules: rules)
    }

    /// Requests the running server answered on an event loop (0 when stopped).
    public var requestsAnsweredInline: Int { running?.server.requestsAnsweredInline ?? 0 }

    /// Stops the server gracefully (connections close) and closes its stores.
    public func stop() async {
        guard let running else { return }
        self.running = nil
        await running.group.triggerGracefulShutdown()
        _ = try? await running.task.value
        await running.server.shutdown()
    }
}
