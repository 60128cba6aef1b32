import Foundation
import HearthCore
import HearthSQLite
import HearthStore

/// The SQLite side of `hearth migrate`: a data folder's databases, opened only where their files exist
/// (so that a migration never creates an empty one).
struct MigrationSource {
    /// The data folder.
    let folder: String
    /// The project whose accounts, files and links are copied.
    let project: String
    /// The namespaces' databases.
    let factory: SQLiteStoreFactory

    init(folder: String, project: String) {
        self.folder = folder
        self.project = project
        self.factory = SQLiteStoreFactory(folder: folder)
    }

    /// The project's accounts, nil when the folder has none.
    func accounts() throws -> (any AccountStore)? {
        try existing("auth").map { try SQLiteAccountStore(path: $0) }
    }

    /// The project's object catalog, nil when the folder has none.
    func catalog() throws -> (any ObjectCatalog)? {
        try existing("storage").map { try SQLiteObjectCatalog(path: $0, durable: false) }
    }

    /// The project's short links, nil when the folder has none.
    func links() throws -> (any LinkStore)? {
        try existing("links").map { try SQLiteLinkStore(path: $0, durable: false) }
    }

    private func existing(_ kind: String) -> String? {
        let path = "\(folder)/\(project).\(kind).sqlite"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// What a copy would move (`--dry-run`).
    func counts(namespaces: [String]) async throws -> MigrationCounts {
        var counts = MigrationCounts()
        for name in namespaces {
            let store = try await factory.open(namespace: name)
            let leaves = try await store.snapshot { try MigrationVerifier.leafCount(of: $0.read(.root)) }
            try await store.close()
            counts.leaves[name] = leaves
        }
        if let accounts = try accounts() { counts.accounts = try await accounts.read { try $0.accountCount() } }
        if let catalog = try catalog() {
            let tally = try await MigrationVerifier.objectTally(catalog)
            counts.buckets = tally.buckets
            counts.objects = tally.objects
        }
        if let links = try links() {
            counts.links = try await MigrationVerifier.linkTally(links).links
            try await links.close()
        }
        return counts
    }
}
