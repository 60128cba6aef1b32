import Foundation
import HearthAuth
import HearthCore
import HearthDatabase
import HearthFunctions
import HearthPostgres
import HearthSQLite
import HearthStore
import HearthWire
import Synchronization

/// Copies what `hearth migrate` moves, store by store, from the data folder to PostgreSQL.
struct MigrationCopy {
    let source: MigrationSource
    let target: MigrationTarget
    let progress: MigrationProgress
    /// Replace what PostgreSQL holds (see `--force`).
    let force: Bool

    /// Rows written per PostgreSQL transaction when copying accounts, objects and links.
    private static let page = 500

    /// Copies every namespace, then the project's accounts, files and links.
    func run(namespaces: [String]) async throws {
        let existing = Set(try target.factory.existingNamespaces())
        for name in namespaces {
            if force && existing.contains(name) { try await target.factory.delete(namespace: name) }
            try await copyNamespace(name)
            progress.namespaces += 1
            progress.report("namespaces", force: true)
        }
        try await copyAccounts()
        try await copyObjects()
        try await copyLinks()
        progress.report("done", force: true)
    }

    /// One namespace: its tree one top-level child at a time (so a big namespace is never held twice), then in
    /// one transaction its settings, indexes, outbox and sequence number.
    private func copyNamespace(_ name: String) async throws {
        let from = try await source.factory.open(namespace: name)
        let to = try await target.factory.open(namespace: name)
        do {
            try await copyNamespace(name, from: from, to: to)
        } catch {
            try? await from.close()
            try? await to.close()
            throw error
        }
        try await from.close()
        try await to.close()
    }

    private func copyNamespace(_ name: String, from: any DatabaseStore, to: any DatabaseStore) async throws {
        let names = try (from as? SQLiteStore)?.settingNames() ?? Self.knownSettingNames
        let head = try await from.snapshot { r in
            NamespaceHead(
                keys: try r.shallow(.root, nil).children.keys, sequence: try r.sequence(),
                settings: try names.compactMap { n in try r.setting(n).map { (n, $0) } },
                events: try Self.events(in: r))
        }
        for key in head.keys {
            let path = Path([key])
            let node = try await from.snapshot { try $0.read(path) }
            try await to.write { try $0.set(path, node) }
            progress.rows += MigrationVerifier.leafCount(of: node)
            progress.report("namespace \(name)")
        }
        let specs = head.settings.first { $0.0 == "rules" }.flatMap { try? RulesDocument(source: $0.1).indexSpecs }
        try await to.write { tx in
            for (setting, value) in head.settings { try tx.setSetting(setting, value) }
            if let specs { try tx.setIndexes(specs) }
            try Self.restore(head.events, into: tx)
            try tx.setSequence(head.sequence)
        }
        progress.rows += head.events.count
    }

    /// The settings copied from a store that cannot list its own (the store protocol has no listing; a SQLite
    /// store can): the rules, and the last tick of each scheduled function registered in this binary.
    static var knownSettingNames: [String] {
        ["rules"] + HearthCommand.registered.withLock { $0.scheduleNames }.map { "schedule:" + $0 }
    }

    private struct NamespaceHead: Sendable {
        var keys: [Key]
        var sequence: UInt64
        var settings: [(String, String)]
        var events: [OutboxEvent]
    }

    /// Accounts with their provider identities, one-time codes and the accounts' outbox.
    private func copyAccounts() async throws {
        guard let from = try source.accounts() else { return }
        if force { try await target.accounts.transaction { try $0.deleteAllAccounts() } }
        var after: String?
        while true {
            let rows = try await from.read { [after] in try $0.accounts(after: after, limit: Self.page) }
            guard let last = rows.last else { break }
            let withIdentities = try rows.map { row in (row, try Self.identities(of: row)) }
            try await target.accounts.transaction { tx in
                for (row, identities) in withIdentities { try tx.save(row, identities: identities, mustBeNew: false) }
            }
            after = last.uid
            progress.accounts += rows.count
            progress.rows += rows.count
            progress.report("accounts")
        }
        let (codes, events) = try await from.read { tx in (try tx.codes(), try Self.events(in: tx)) }
        try await target.accounts.transaction { tx in
            for code in codes { try tx.saveCode(hash: code.hash, data: code.data, created: code.created) }
            try Self.restore(events, into: tx)
        }
        progress.rows += codes.count + events.count
    }

    /// The provider identities an account's record lists (the index PostgreSQL keeps beside the row).
    static func identities(of row: AccountRow) throws -> [AccountIdentity] {
        try JSONDecoder().decode(UserRecord.self, from: row.record).linkedProviders.map {
            AccountIdentity(providerId: $0.providerId, rawId: $0.rawId)
        }
    }

    /// Buckets, their object records (the files themselves stay in the data folder) and the catalog's outbox.
    private func copyObjects() async throws {
        guard let from = try source.catalog() else { return }
        let (buckets, events) = try await from.read { tx in (try tx.buckets(), try Self.events(in: tx)) }
        try await target.catalog.transaction { tx in
            for bucket in buckets { try tx.saveBucket(bucket) }
            try Self.restore(events, into: tx)
        }
        for bucket in buckets.map(\.name) {
            var lower = ""
            var inclusive = true
            while true {
                let objects = try await from.read { [lower, inclusive] in
                    try $0.objects(bucket: bucket, from: lower, inclusive: inclusive, before: nil, limit: Self.page)
                }
                guard let last = objects.last else { break }
                try await target.catalog.transaction { tx in for object in objects { try tx.saveObject(object) } }
                (lower, inclusive) = (last.name, false)
                progress.objects += objects.count
                progress.rows += objects.count
                progress.report("objects")
            }
        }
    }

    /// Short links and their daily counts; a link PostgreSQL already has (with `--force`) keeps its counts.
    private func copyLinks() async throws {
        guard let from = try source.links() else { return }
        var after: String?
        while true {
            let links = try await from.links(after: after, limit: Self.page)
            guard let last = links.last else { break }
            for link in links where try await target.links.insert(link) == .inserted {
                let counts = try await from.counts(suffix: link.suffix, fromDay: 0)
                if !counts.isEmpty {
                    try await target.links.addCounts(Dictionary(counts.map { ($0.key, $0.count) }, uniquingKeysWith: +))
                }
                progress.rows += 1 + counts.count
            }
            after = last.suffix
            progress.links += links.count
            progress.report("links")
        }
        try await from.close()
    }

    /// Every live and dead event of an outbox.
    static func events(in outbox: any OutboxReader) throws -> [OutboxEvent] {
        try outbox.dueEvents(now: .max, limit: .max) + outbox.deadEvents(after: .min, limit: .max)
    }

    /// Enqueues `events` again with their attempts, next attempt, last error and dead state (new ids, in the
    /// old order; the time each was first enqueued becomes its next attempt).
    static func restore(_ events: [OutboxEvent], into outbox: any OutboxWriter) throws {
        for event in events.sorted(by: { $0.id < $1.id }) {
            let id = try outbox.enqueueEvent(function: event.function, payload: event.payload, at: event.nextAttemptAt)
            if event.dead {
                try outbox.buryEvent(id, attempts: event.attempts, error: event.lastError ?? "")
            } else if event.attempts > 0 || event.lastError != nil {
                try outbox.retryEvent(id, attempts: event.attempts, at: event.nextAttemptAt, error: event.lastError ?? "")
            }
        }
    }
}
