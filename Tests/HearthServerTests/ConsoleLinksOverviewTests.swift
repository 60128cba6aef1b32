import Foundation
import HearthCore
import HearthLinks
import HearthPostgres
import HearthSQLite
import HearthStore
import Testing

@testable import HearthServer

extension LinksStoreTests {
    @Test(arguments: Backend.allCases)
    func deletesALinkWithItsCounters(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        let a = Self.record("AbCd", "https://ex.page.link/?link=a")
        let b = Self.record("Zzzz", "https://ex.page.link/?link=b")
        #expect(try await store.insert(a) == .inserted)
        #expect(try await store.insert(b) == .inserted)
        let click = LinkCounterKey(suffix: "AbCd", platform: .ios, event: .click, day: 100)
        let kept = LinkCounterKey(suffix: "Zzzz", platform: .desktop, event: .click, day: 100)
        try await store.addCounts([click: 3, kept: 2])

        #expect(try await store.delete(suffix: "AbCd"))
        #expect(try await store.link(suffix: "AbCd") == nil)
        #expect(try await store.counts(suffix: "AbCd", fromDay: 0).isEmpty)
        #expect(try await store.links(after: nil, limit: 10).map(\.suffix) == ["Zzzz"])
        #expect(try await store.counts(suffix: "Zzzz", fromDay: 0) == [LinkCount(key: kept, count: 2)])
        #expect(try await store.delete(suffix: "AbCd") == false)
        // The long link is free again: making it anew stores a new link.
        #expect(try await store.insert(Self.record("New1", a.longLink)) == .inserted)
        try await store.close()
    }
}

/// What the console's Links and Overview pages read: a deleted link stops resolving at once, the metrics' rates and
/// 10-second history, dates of the stats, and the SQLite namespaces' sizes.
@Suite("Console: links and overview")
struct ConsoleLinksOverviewTests {
    @Test func deletingALinkForgetsItsCacheAndPendingClicks() async throws {
        let service = LinkService(store: MemoryLinkStore(), domains: [LinkDomain("https://ex.page.link")!])
        let made = try await service.create(.object([JSONMember("longDynamicLink", .string("https://ex.page.link/?link=https://ex.com/a"))]))
        let suffix = made.record.suffix
        #expect(try await service.resolve(suffix: suffix) != nil)
        service.record(suffix, .android, .click)
        #expect(try await service.counts(suffix: suffix, days: 1).count == 1)

        #expect(try await service.delete(suffix: suffix))
        #expect(try await service.resolve(suffix: suffix) == nil)
        #expect(try await service.counts(suffix: suffix, days: 1).isEmpty)
        #expect(try await service.delete(suffix: suffix) == false)
    }

    @Test func metricsKeepRatesAndTenSecondBuckets() {
        let metrics = ServerMetrics(connections: { 3 })
        let t0: Int64 = 1_800_000_000_000  // a multiple of 10 000
        metrics.sample(now: t0)
        for _ in 0..<20 { metrics.countRequest() }
        metrics.sample(now: t0 + 4_000)
        #expect(metrics.rates().requests == 5)
        for _ in 0..<30 { metrics.countRequest() }
        metrics.sample(now: t0 + 12_000)
        // The window keeps one reading at least 10 s old: 50 requests over 12 s.
        #expect(abs(metrics.rates().requests - 50.0 / 12) < 0.001)
        let history = metrics.history
        #expect(history.map(\.t) == [t0, t0 + 10_000])
        #expect(history.map(\.requests) == [20, 30])
        #expect(history.allSatisfy { $0.connections == 3 })

        // An hour later the old buckets are gone; at most 360 are kept.
        metrics.sample(now: t0 + 3_600_000)
        #expect(metrics.history.map(\.t) == [t0 + 10_000, t0 + 3_600_000])
        for i in 0..<400 { metrics.sample(now: t0 + 3_600_000 + Int64(i) * 10_000) }
        #expect(metrics.history.count == ServerMetrics.bucketCount)
    }

    @Test func metricsCountWritesWhereTheDatabaseCommits() async throws {
        let metrics = ServerMetrics()
        let store = MemoryStore()
        let database = try await Database(name: "metrics", store: store, observer: NoObserver(), clock: { 0 })
        for i in 0..<5 {
            _ = try await database.write(WriteRequest(path: Path("n/k\(i)"), operation: .set(try Node.parseWrite(JSONValue.parse("\(i)")))))
        }
        // Other tests of this process may commit meanwhile: at least these five.
        #expect(metrics.reading(now: 0).writes >= 5)
    }

    @Test func statsDatesAreUTCCalendarDays() {
        #expect(AdminController.date(day: 0) == "1970-01-01")
        #expect(AdminController.date(day: -1) == "1969-12-31")
        #expect(AdminController.date(day: 11_016) == "2000-02-29")
        #expect(AdminController.date(day: 20_786) == "2026-11-29")
    }

    @Test func sqliteNamespacesAreMeasuredByTheirFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sizes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let factory = SQLiteStoreFactory(folder: folder, durability: .normal)
        let store = try await factory.open(namespace: "shop")
        let sizes = try await factory.namespaceSizes()
        #expect(Set(sizes.keys) == ["shop"])
        #expect((sizes["shop"] ?? 0) > 0)
        try await store.close()
        #expect(try await MemoryStoreFactory().namespaceSizes().isEmpty)
    }
}

extension ConsoleLinksOverviewTests {
    @Test(.enabled(if: PostgresTestServer.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to measure PostgreSQL namespaces"))
    func postgresNamespacesAreMeasuredByTheirRows() async throws {
        let factory = PostgresStoreFactory(server: try await PostgresTestServer.server())
        let name = "sizes" + PostgresTestServer.freshProject().filter(\.isLetter).lowercased().prefix(12)
        let store = try await factory.open(namespace: name)
        let database = try await Database(name: name, store: store, observer: NoObserver(), clock: { 0 })
        let before = try await factory.namespaceSizes()[name]
        #expect(before == 0)
        let value = try Node.parseWrite(JSONValue.parse(#"{"x":"hello","y":[1,2,3]}"#))
        _ = try await database.write(WriteRequest(path: Path("a/b"), operation: .set(value)))
        #expect((try await factory.namespaceSizes()[name] ?? 0) > 0)
        try await store.close()
        try await factory.delete(namespace: name)
    }
}

/// A change observer that ignores every commit.
private struct NoObserver: ChangeObserver {
    /// Ignores the changes.
    func didCommit(_ changes: [Change]) {}
}
