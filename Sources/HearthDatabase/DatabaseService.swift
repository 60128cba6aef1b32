import HearthCore
import HearthStore
import Logging

/// The Realtime Database as a service: namespaces, parsing and committing writes under the rules,
/// checked reads and queries. It speaks in paths, nodes, outcomes and ``DatabaseError``s; each
/// protocol (REST and its event streams, the realtime WebSocket protocol, server functions) is an
/// adapter that maps them to its own wire.
package struct DatabaseService: Sendable {
    /// The namespaces that exist and the open ones.
    package let registry: NamespaceRegistry
    /// What to do with a query that has no `.indexOn`.
    package let indexPolicy: IndexPolicy
    let logger: Logger
    /// Milliseconds since 1970: the rules' `now` on reads (writes take the writer's clock).
    package let clock: @Sendable () -> Int64

    package init(registry: NamespaceRegistry, indexPolicy: IndexPolicy, logger: Logger, clock: @escaping @Sendable () -> Int64) {
        self.registry = registry
        self.indexPolicy = indexPolicy
        self.logger = logger
        self.clock = clock
    }

    /// Holds the namespace `name` (give it back with ``release(_:)``); an unknown one is
    /// ``DatabaseError/namespace(_:)``.
    package func lease(_ name: String, onDelete: (@Sendable () -> Void)? = nil) async throws(DatabaseError) -> NamespaceLease {
        do {
            return try await registry.lease(name, onDelete: onDelete)
        } catch {
            throw .namespace(error)
        }
    }

    /// Gives back a namespace held with ``lease(_:onDelete:)``.
    package func release(_ lease: NamespaceLease) { registry.release(lease) }

    /// Runs `body` with the namespace `name` held.
    package func withNamespace<R: Sendable>(_ name: String, _ body: (Namespace) async throws -> R) async throws -> R {
        let lease = try await lease(name)
        defer { registry.release(lease) }
        return try await body(lease.namespace)
    }
}
