import Crypto
import Foundation
import HearthPostgres
import HearthSQLite
import HearthCore
import HearthStore

/// Compares the data folder with PostgreSQL after `hearth migrate`: per namespace the leaves, a SHA-256 of the
/// export and the rules; per project the accounts, buckets, objects, links and link counts.
struct MigrationVerifier {
    let source: MigrationSource
    let target: MigrationTarget

    /// One line of the table: what was compared and what each side holds.
    struct Check {
        var name: String
        var source: String
        var target: String
        var matches: Bool { source == target }
    }

    /// Every check, namespaces first.
    func checks(namespaces: [String]) async throws -> [Check] {
        var checks: [Check] = []
        for name in namespaces {
            let from = try await Self.fingerprint(try await source.factory.open(namespace: name))
            let to = try await Self.fingerprint(try await target.factory.open(namespace: name))
            checks.append(Check(name: "\(name): leaves", source: "\(from.leaves)", target: "\(to.leaves)"))
            checks.append(Check(name: "\(name): export sha256", source: from.digest, target: to.digest))
            checks.append(Check(name: "\(name): rules sha256", source: from.rules, target: to.rules))
        }
        let accountsFrom = try await source.accounts()?.read { try $0.accountCount() } ?? 0
        let accountsTo = try await target.accounts.read { try $0.accountCount() }
        checks.append(Check(name: "accounts", source: "\(accountsFrom)", target: "\(accountsTo)"))
        var objectsFrom = (buckets: 0, objects: 0)
        if let catalog = try source.catalog() { objectsFrom = try await Self.objectTally(catalog) }
        let objectsTo = try await Self.objectTally(target.catalog)
        checks.append(Check(name: "buckets", source: "\(objectsFrom.buckets)", target: "\(objectsTo.buckets)"))
        checks.append(Check(name: "objects", source: "\(objectsFrom.objects)", target: "\(objectsTo.objects)"))
        var linksFrom = (links: 0, clicks: Int64(0))
        if let links = try source.links() {
            linksFrom = try await Self.linkTally(links)
            try await links.close()
        }
        let linksTo = try await Self.linkTally(target.links)
        checks.append(Check(name: "links", source: "\(linksFrom.links)", target: "\(linksTo.links)"))
        checks.append(Check(name: "link counts", source: "\(linksFrom.clicks)", target: "\(linksTo.clicks)"))
        return checks
    }

    /// The table printed after a migration: one row per check, `ok` or `MISMATCH`.
    static func table(_ checks: [Check]) -> String {
        let width = max(5, checks.map(\.name.count).max() ?? 0)
        let valueWidth = max(6, checks.map { max($0.source.count, $0.target.count) }.max() ?? 0)
        func row(_ a: String, _ b: String, _ c: String, _ d: String) -> String {
            [a.padding(toLength: width, withPad: " ", startingAt: 0), b.padding(toLength: valueWidth, withPad: " ", startingAt: 0),
             c.padding(toLength: valueWidth, withPad: " ", startingAt: 0), d].joined(separator: "  ")
        }
        var lines = [row("check", "sqlite", "postgres", "result")]
        lines += checks.map { row($0.name, $0.source, $0.target, $0.matches ? "ok" : "MISMATCH") }
        return lines.joined(separator: "\n")
    }

    /// A namespace's leaf count, the SHA-256 of its export (priorities included) and of its rules; closes the store.
    private static func fingerprint(_ store: any DatabaseStore) async throws -> (leaves: Int, digest: String, rules: String) {
        let result = try await store.snapshot { r in
            let root = try r.read(.root)
            return (leafCount(of: root), hex(root.jsonBytes(format: .export)), hex(Array((try r.setting("rules") ?? "").utf8)))
        }
        try await store.close()
        return result
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The number of leaves under `node`.
    static func leafCount(of node: Node) -> Int {
        switch node.content {
        case .empty: 0
        case .leaf: 1
        case .children(let children): children.nodes.reduce(0) { $0 + leafCount(of: $1) }
        }
    }

    /// Buckets and object records of a catalog, counted page by page.
    static func objectTally(_ catalog: any ObjectCatalog) async throws -> (buckets: Int, objects: Int) {
        let buckets = try await catalog.read { try $0.buckets().map(\.name) }
        var objects = 0
        for bucket in buckets {
            var lower = ""
            var inclusive = true
            while true {
                let page = try await catalog.read { [lower, inclusive] in
                    try $0.objects(bucket: bucket, from: lower, inclusive: inclusive, before: nil, limit: 1000).map(\.name)
                }
                guard let last = page.last else { break }
                objects += page.count
                (lower, inclusive) = (last, false)
            }
        }
        return (buckets.count, objects)
    }

    /// Links of a store and the sum of their daily counts.
    static func linkTally(_ store: any LinkStore) async throws -> (links: Int, clicks: Int64) {
        var links = 0
        var clicks: Int64 = 0
        var after: String?
        while true {
            let page = try await store.links(after: after, limit: 1000)
            guard let last = page.last else { break }
            links += page.count
            for link in page { clicks += try await store.counts(suffix: link.suffix, fromDay: 0).reduce(0) { $0 + $1.count } }
            after = last.suffix
        }
        return (links, clicks)
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
