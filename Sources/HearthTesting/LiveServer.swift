public import HearthServer
public import HearthStore
import Hummingbird
public import Logging
import ServiceLifecycle

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
    let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, adminToken: adminToken, indexPolicy: indexPolicy)
    let server = HearthServer(configuration: configuration, stores: stores, logger: logger)
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let group = server.serviceGroup(gracefulShutdownSignals: []) { port in portContinuation.yield(port) }
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do {
            let result = try await body(port)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            await server.shutdown()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            await server.shutdown()
            throw error
        }
    }
}
