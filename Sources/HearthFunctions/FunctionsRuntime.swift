import AsyncHTTPClient
import Foundation
import HearthAuth
import HearthCore
import HearthDatabase
import HearthLinks
import HearthMessaging
import HearthStorage
import HearthStore
import Logging
import Synchronization

/// Runs an app's registered functions inside the server: delivers trigger events from the outboxes,
/// answers callable and HTTP functions, and drives scheduled jobs.
package final class FunctionsRuntime: NamespaceTriggers, Sendable {
    package let functions: Functions
    package let logger: Logger
    package let defaultNamespace: String
    let httpClient: HTTPClient
    let auth: AuthService?
    let storage: StorageService?
    let links: LinkService?
    /// Push notifications, when the server has provider credentials: `$push` events are delivered through it.
    let messaging: MessagingService?
    /// The outside services every function's context carries, their HTTP clients on ``httpClient``.
    let services: OutsideServices
    /// Milliseconds since 1970.
    package let clock: @Sendable () -> Int64
    private let dispatchers = Mutex<[String: OutboxDispatcher]>([:])
    /// The last runs on this node, every kind (trigger deliveries, scheduled jobs, callables, HTTP functions).
    package let runs = FunctionRunLog()
    /// The scheduled jobs running now (by the scheduler or "run now"), so that "run now" does not start a second.
    let runningJobs = Mutex<Set<String>>([])
    /// Dispatchers created after start (a namespace with triggers opened), for the service to run.
    let started: AsyncStream<OutboxDispatcher>
    private let startContinuation: AsyncStream<OutboxDispatcher>.Continuation
    private let handlers: [String: Handler]
    private let triggersByNamespace: [String: [DatabaseTrigger]]

    enum Handler: Sendable {
        case database(PathPattern, RetryPolicy, Functions.DatabaseHandler)
        case user(RetryPolicy, Functions.UserHandler)
        case object(RetryPolicy, Functions.ObjectHandler)
    }

    package init(
        functions: Functions, defaultNamespace: String, auth: AuthService?, storage: StorageService?, links: LinkService? = nil, logger: Logger,
        services: OutsideServices = OutsideServices(), messaging: MessagingService? = nil,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.functions = functions
        self.clock = clock
        self.defaultNamespace = defaultNamespace
        self.auth = auth
        self.storage = storage
        self.links = links
        self.messaging = messaging
        self.logger = logger
        self.httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
        self.services = services.resolved(httpClient: httpClient, logger: logger)
        (started, startContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        var handlers: [String: Handler] = [:]
        var triggers: [String: [DatabaseTrigger]] = [:]
        for entry in functions.database {
            handlers[entry.trigger.function] = .database(entry.trigger.pattern, entry.retry, entry.handler)
            triggers[entry.namespace ?? defaultNamespace, default: []].append(entry.trigger)
        }
        for entry in functions.userCreated + functions.userDeleted { handlers[entry.name] = .user(entry.retry, entry.handler) }
        for entry in functions.objectFinalized + functions.objectDeleted { handlers[entry.name] = .object(entry.retry, entry.handler) }
        self.handlers = handlers
        self.triggersByNamespace = triggers
        if let auth, !(functions.userCreated.isEmpty && functions.userDeleted.isEmpty) {
            let dispatcher = makeDispatcher(EventQueue(accounts: auth.accountStore), poll: .milliseconds(500))
            auth.events.install(
                EventHook.Functions(
                    created: functions.userCreated.map(\.name), deleted: functions.userDeleted.map(\.name), wake: { dispatcher.wake() }))
        }
        if let storage, !(functions.objectFinalized.isEmpty && functions.objectDeleted.isEmpty) {
            let dispatcher = makeDispatcher(EventQueue(objects: storage.catalog), poll: .seconds(1))
            storage.events.install(
                EventHook.Functions(
                    created: functions.objectFinalized.map(\.name), deleted: functions.objectDeleted.map(\.name), wake: { dispatcher.wake() }))
        }
    }

    /// Namespaces that have database triggers, and the default one when push is configured (opened at start so
    /// pending events are delivered).
    var triggerNamespaces: [String] {
        var names = Set(triggersByNamespace.keys)
        if messaging != nil { names.insert(defaultNamespace) }
        return names.sorted()
    }

    package func triggers(for namespace: String) -> [DatabaseTrigger] { triggersByNamespace[namespace] ?? [] }

    /// The dispatcher for a namespace's outbox, created when the namespace opens.
    package func opened(_ namespace: String, store: any DatabaseStore) -> (@Sendable () -> Void)? {
        // With push configured any namespace's outbox may hold `$push` events.
        guard triggersByNamespace[namespace] != nil || messaging != nil else { return nil }
        // Where other nodes enqueue into the same outbox, nobody wakes this dispatcher for their events.
        let dispatcher = makeDispatcher(EventQueue(database: store, namespace: namespace), poll: store is any OutboxLeasing ? .seconds(1) : nil)
        return { dispatcher.wake() }
    }

    private func makeDispatcher(_ queue: EventQueue, poll: Duration?) -> OutboxDispatcher {
        let dispatcher = OutboxDispatcher(queue: queue, poll: poll, logger: logger, clock: clock)
        dispatchers.withLock { $0[queue.name] = dispatcher }
        startContinuation.yield(dispatcher)
        return dispatcher
    }

    package var allDispatchers: [OutboxDispatcher] { dispatchers.withLock { $0.values.sorted { $0.queue.name < $1.queue.name } } }

    package func dispatcher(_ queue: String) -> OutboxDispatcher? { dispatchers.withLock { $0[queue] } }

    func finish() { startContinuation.finish() }

    package func shutdown() async {
        try? await httpClient.shutdown()
    }

    /// The context a function runs with, on `database`; its database writes carry `triggerDepth` (see
    /// ``WriteRequest/triggerDepth``): the depth of the database event it handles, else 0.
    package func context(for function: String, database: DatabaseService, triggerDepth: Int = 0) -> FunctionContext {
        var log = logger
        log[metadataKey: "hearth.function"] = "\(function)"
        return FunctionContext(
            logger: log, database: AdminDatabase(service: database, defaultNamespace: defaultNamespace, triggerDepth: triggerDepth),
            auth: auth, storage: storage.map { AdminStorage(service: $0, publicURL: publicURL) },
            links: links.map { AdminLinks(service: $0) },
            messaging: messaging.map { AdminMessaging(service: $0, database: database, defaultNamespace: defaultNamespace) }, httpClient: httpClient,
            services: services, functionName: function, publicURL: publicURL)
    }

    private let publicBase = Mutex<String?>(nil)

    /// Where clients reach the server (``FunctionContext/publicURL``); set once it listens.
    package var publicURL: String? {
        get { publicBase.withLock { $0 } }
        set { publicBase.withLock { $0 = newValue.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } } }
    }

    /// The longest chain of database triggers, one writing what fires the next, that runs: an
    /// event deeper than this fails without running its function. No sensible chain is this long,
    /// and a trigger that keeps changing the location it watches would otherwise run forever.
    static let maxTriggerDepth = 16

    /// Runs one outbox event's function, with `database` as its context's database, and logs the run in ``runs``.
    package func run(_ event: OutboxEvent, from queue: String, database: DatabaseService) async -> OutboxDispatcher.RunResult {
        await runs.timed(event.function, trigger: "\(queue)/\(event.id)", attempt: event.attempts + 1, clock: clock) {
            let result = await deliver(event, from: queue, database: database)
            switch result {
            case .success: return (result, .ok, nil)
            case .interrupted: return (result, nil, nil)
            case .failure(let message, let policy): return (result, event.attempts + 1 >= policy.maxAttempts ? .dead : .retry, message)
            }
        }.0
    }

    /// Runs one outbox event's function.
    private func deliver(_ event: OutboxEvent, from queue: String, database: DatabaseService) async -> OutboxDispatcher.RunResult {
        if event.function == QueuedPush.function { return await deliverPush(event, from: queue, database: database) }
        guard let handler = handlers[event.function] else {
            return .failure("No function named \"\(event.function)\" is registered in this server", .never)
        }
        let id = "\(queue)/\(event.id)"
        var context = context(for: event.function, database: database)
        let attempt = event.attempts + 1
        do {
            switch handler {
            case .database(let pattern, let policy, let body):
                let payload = try JSONValue.parse(event.payload)
                // Events queued before depths were recorded count as the first of a chain.
                let depth = payload["depth"].flatMap { if case .int(let d) = $0 { Int(d) } else { nil } } ?? 1
                guard depth <= Self.maxTriggerDepth else {
                    let message = "Not run: this event is trigger number \(depth) of a chain (the limit is \(Self.maxTriggerDepth)); "
                        + "a trigger probably keeps changing a location it watches"
                    context.logger.error("trigger chain stopped", metadata: ["hearth.event": "\(id)", "hearth.error": "\(message)"])
                    return .failure(message, .never)
                }
                context = self.context(for: event.function, database: database, triggerDepth: depth)
                let pathText = payload["path"]?.stringValue ?? "/"
                let path = Path(pathText)
                let time = Date(timeIntervalSince1970: Double(payload["time"].flatMap { if case .int(let t) = $0 { t } else { nil } } ?? event.createdAt) / 1000)
                let databaseEvent = DatabaseEvent(
                    id: id, namespace: String(queue.dropFirst(3)), path: path.description, params: pattern.match(path) ?? [:],
                    before: payload["before"] ?? .null, after: payload["after"] ?? .null, time: time, attempt: attempt)
                try await Self.execute(retry: policy) { try await body(databaseEvent, context) }
            case .user(let policy, let body):
                let user = try JSONDecoder().decode(UserRecord.self, from: Data(event.payload))
                let time = Date(timeIntervalSince1970: Double(event.createdAt) / 1000)
                try await Self.execute(retry: policy) { try await body(UserEvent(id: id, user: user, time: time, attempt: attempt), context) }
            case .object(let policy, let body):
                let object = try JSONDecoder().decode(ObjectRecord.self, from: Data(event.payload))
                let time = Date(timeIntervalSince1970: Double(event.createdAt) / 1000)
                try await Self.execute(retry: policy) { try await body(ObjectEvent(id: id, object: object, time: time, attempt: attempt), context) }
            }
            return .success
        } catch is CancellationError where Task.isCancelled {
            return .interrupted
        } catch let failure as Failure {
            context.logger.warning(
                "function failed", metadata: ["hearth.event": "\(id)", "hearth.attempt": "\(attempt)", "hearth.error": "\(failure.message)"])
            return .failure(failure.message, failure.retry)
        } catch {
            // The payload itself could not be read: retrying cannot help.
            context.logger.error("unreadable trigger event", metadata: ["hearth.event": "\(id)", "hearth.error": "\(error)"])
            return .failure("Unreadable event: \(error)", .never)
        }
    }

    private struct Failure: Error {
        var message: String
        var retry: RetryPolicy
    }

    /// Runs a handler; its errors become a `Failure` under its retry policy (cancellation passes through).
    private static func execute(retry: RetryPolicy, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch is CancellationError where Task.isCancelled {
            throw CancellationError()
        } catch {
            throw Failure(message: String(describing: error), retry: retry)
        }
    }
}
