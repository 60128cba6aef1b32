import Foundation
import HTTPTypes
import HearthCore
public import HearthStore
public import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle

/// The Hearth HTTP server: the Realtime Database REST + streaming API on one port.
///
/// ```swift
/// let server = HearthServer(configuration: config, stores: SQLiteStoreFactory(folder: "hearth-data"), logger: logger)
/// try await server.application().runService()
/// ```
public struct HearthServer: Sendable {
    public let configuration: ServerConfiguration
    let registry: NamespaceRegistry
    let controller: DatabaseController
    let logger: Logger

    public init(
        configuration: ServerConfiguration,
        stores: any StoreFactory,
        logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        let wallClock: @Sendable () -> Int64 = clock
        self.configuration = configuration
        self.logger = logger
        self.registry = NamespaceRegistry(factory: stores, clock: wallClock)
        self.controller = DatabaseController(
            configuration: configuration, registry: registry, pushIDs: PushIDGenerator(), clock: wallClock, logger: logger)
    }

    /// The Hummingbird application; `onServerRunning` receives the bound port.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = Router(context: BasicRequestContext.self)
        let controller = self.controller
        router.get("/.well-known/hearth/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\"}")))
        }
        let responder = HearthResponder(controller: controller, router: router.buildResponder())
        return Application(
            responder: responder,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [KeepAliveService(registry: registry, seconds: configuration.keepAliveSeconds)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    /// Closes every open store (call after the application stopped).
    public func shutdown() async {
        await registry.closeAll()
    }
}

/// Sends `/.well-known/…` to the router and everything else to the database controller.
struct HearthResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    let controller: DatabaseController
    let router: Inner

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        if request.uri.path.hasPrefix("/.well-known/") { return try await router.respond(to: request, context: context) }
        return await controller.respond(to: request)
    }
}

/// Sends SSE keep-alives and, on graceful shutdown, ends every stream so in-flight responses finish.
struct KeepAliveService: Service {
    let registry: NamespaceRegistry
    let seconds: Int

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(seconds))
                for name in await registry.names {
                    try? await registry.namespace(name).hub.keepAlive()
                }
            }
        }
        await registry.closeStreams()
    }
}
