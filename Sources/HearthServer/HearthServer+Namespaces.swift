import Foundation
import HearthCore
public import HearthDatabase
public import HearthStore

extension HearthServer {
    /// Creates the namespace (database) `name`, as `PUT /.settings/namespaces/<name>.json` does:
    /// with `rules` (a rules document, comments allowed), or locked (`.read`/`.write` false).
    ///
    /// ```swift
    /// try await server.createNamespace("orders", rules: #"{"rules": {".read": "auth != null"}}"#)
    /// ```
    public func createNamespace(_ name: String, rules: String? = nil) async throws(NamespaceError) {
        try await registry.create(name, rules: try Self.rulesDocument(rules))
    }

    /// Every namespace that exists, sorted.
    public var namespaceNames: [String] { registry.names }

    /// Creates a namespace in a backend without a server (`hearth namespaces create`).
    public static func createNamespace(_ name: String, rules: String? = nil, in stores: any StoreFactory) async throws(NamespaceError) {
        let document = try rulesDocument(rules)
        // "-" is no namespace name: the offline registry has no default namespace of its own.
        let registry = NamespaceRegistry(factory: stores, clock: { Int64(Date().timeIntervalSince1970 * 1000) }, initialRules: .denyAll, defaultNamespace: "-")
        do {
            try await registry.create(name, rules: document)
        } catch {
            await registry.closeAll()
            throw error
        }
        await registry.closeAll()
    }

    /// Deletes a namespace and its data in a backend without a server (`hearth namespaces delete`).
    public static func deleteNamespace(_ name: String, in stores: any StoreFactory) async throws(NamespaceError) {
        let registry = NamespaceRegistry(factory: stores, clock: { Int64(Date().timeIntervalSince1970 * 1000) }, initialRules: .denyAll, defaultNamespace: "-")
        try await registry.delete(name)
    }

    /// The namespaces a backend holds, sorted.
    public static func namespaceNames(in stores: any StoreFactory) throws -> [String] {
        try stores.existingNamespaces().filter(NamespaceRegistry.isValid).sorted()
    }

    private static func rulesDocument(_ text: String?) throws(NamespaceError) -> RulesDocument? {
        guard let text else { return nil }
        do {
            return try RulesDocument(source: text)
        } catch {
            throw NamespaceError(.invalid, error.message)
        }
    }
}
