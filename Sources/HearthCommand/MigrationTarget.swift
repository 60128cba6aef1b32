import HearthPostgres
import HearthStore

/// The PostgreSQL side of `hearth migrate`: the same stores `hearth serve --postgres` opens.
struct MigrationTarget {
    /// The connection pool.
    let server: PostgresServer
    /// The namespaces' databases.
    let factory: PostgresStoreFactory
    /// The project's accounts.
    let accounts: PostgresAccountStore
    /// The project's object catalog.
    let catalog: PostgresObjectCatalog
    /// The project's short links.
    let links: PostgresLinkStore

    init(server: PostgresServer, project: String) {
        self.server = server
        self.factory = PostgresStoreFactory(server: server)
        self.accounts = PostgresAccountStore(server: server, project: project)
        self.catalog = PostgresObjectCatalog(server: server, project: project)
        self.links = PostgresLinkStore(server: server, project: project)
    }

    /// What PostgreSQL already holds that a copy would overwrite: namespaces of the same names, and the
    /// project's accounts, buckets and links. Empty when the copy may go ahead without `--force`.
    func heldData(namespaces: [String]) async throws -> [String] {
        var held: [String] = []
        let existing = Set(try factory.existingNamespaces())
        let clashing = namespaces.filter(existing.contains)
        if !clashing.isEmpty { held.append("the namespaces \(clashing.joined(separator: ", "))") }
        let accountCount = try await accounts.read { try $0.accountCount() }
        if accountCount > 0 { held.append("\(accountCount) accounts of this project") }
        let buckets = try await catalog.read { try $0.buckets().count }
        if buckets > 0 { held.append("\(buckets) buckets of this project") }
        if !(try await links.links(after: nil, limit: 1)).isEmpty { held.append("short links of this project") }
        return held
    }

    /// Closes the link store (the others hold nothing of their own beyond the pool).
    func close() async throws {
        try await links.close()
    }
}
