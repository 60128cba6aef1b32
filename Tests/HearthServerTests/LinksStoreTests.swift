import Foundation
import HearthPostgres
import HearthSQLite
import HearthStore
import Testing

/// One suite for every LinkStore backend (PostgreSQL when `HEARTH_TEST_POSTGRES` is set): dedupe, suffix collisions,
/// listing and batched counters.
@Suite("Links: store conformance")
struct LinksStoreTests {
    enum Backend: String, CaseIterable, Sendable {
        case memory, sqlite, postgres

        static var allCases: [Backend] { PostgresTestServer.url == nil ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }
    }

    static func make(_ backend: Backend) async throws -> any LinkStore {
        switch backend {
        case .memory: return MemoryLinkStore()
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-links-\(UUID().uuidString).sqlite").path
            return try SQLiteLinkStore(path: path, durable: false)
        case .postgres:
            return PostgresLinkStore(server: try await PostgresTestServer.server(), project: PostgresTestServer.freshProject())
        }
    }

    static func record(_ suffix: String, _ long: String, option: LinkSuffixOption = .short, inviter: String? = nil) -> LinkRecord {
        LinkRecord(suffix: suffix, prefix: "https://ex.page.link", longLink: long, option: option, inviter: inviter, created: 1_700_000_000_000)
    }

    @Test(arguments: Backend.allCases)
    func insertsFindsAndDeduplicates(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        let a = Self.record("AbCd", "https://ex.page.link/?link=a")
        #expect(try await store.insert(a) == .inserted)
        #expect(try await store.link(suffix: "AbCd") == a)
        #expect(try await store.link(suffix: "abcd") == nil)
        #expect(try await store.link(longLink: a.longLink, option: .short, inviter: nil) == a)
        #expect(try await store.link(longLink: a.longLink, option: .unguessable, inviter: nil) == nil)
        // Same long link and option → the existing record; same suffix, other link → taken.
        #expect(try await store.insert(Self.record("Zzzz", a.longLink)) == .duplicate(a))
        #expect(try await store.insert(Self.record("AbCd", "https://ex.page.link/?link=b")) == .suffixTaken)
        // Another option or another inviter is another link.
        #expect(try await store.insert(Self.record("Long0000000000000", a.longLink, option: .unguessable)) == .inserted)
        let invited = Self.record("Inv1", a.longLink, inviter: "u1")
        #expect(try await store.insert(invited) == .inserted)
        #expect(try await store.link(longLink: a.longLink, option: .short, inviter: "u1") == invited)
        #expect(try await store.link(suffix: "Inv1")?.inviter == "u1")
        try await store.close()
    }

    @Test(arguments: Backend.allCases)
    func listsBySuffixInPages(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        for s in ["b", "a", "D", "c"] { _ = try await store.insert(Self.record(s, "https://ex.page.link/?link=" + s)) }
        #expect(try await store.links(after: nil, limit: 10).map(\.suffix) == ["D", "a", "b", "c"])
        #expect(try await store.links(after: "a", limit: 2).map(\.suffix) == ["b", "c"])
        #expect(try await store.links(after: "c", limit: 2).isEmpty)
        try await store.close()
    }

    @Test(arguments: Backend.allCases)
    func addsCounterBatchesAndReadsThemByDay(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        let click = LinkCounterKey(suffix: "AbCd", platform: .ios, event: .click, day: 100)
        let redirect = LinkCounterKey(suffix: "AbCd", platform: .android, event: .redirect, day: 101)
        let other = LinkCounterKey(suffix: "Zzzz", platform: .ios, event: .click, day: 101)
        try await store.addCounts([click: 2, redirect: 1, other: 7])
        try await store.addCounts([click: 3])
        try await store.addCounts([:])
        #expect(try await store.counts(suffix: "AbCd", fromDay: 0) == [LinkCount(key: click, count: 5), LinkCount(key: redirect, count: 1)])
        #expect(try await store.counts(suffix: "AbCd", fromDay: 101) == [LinkCount(key: redirect, count: 1)])
        #expect(try await store.counts(suffix: "none", fromDay: 0).isEmpty)
        try await store.close()
    }

    @Test(arguments: Backend.allCases)
    func veryLongLinksAreStoredAndDeduplicated(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        // Longer than a PostgreSQL B-tree entry may be (about 2.7 kB), so the unique index cannot hold the link itself.
        let long = "https://ex.page.link/?link=" + String(repeating: "x", count: 10_000)
        let a = Self.record("Long", long)
        #expect(try await store.insert(a) == .inserted)
        #expect(try await store.insert(Self.record("Other", long)) == .duplicate(a))
        #expect(try await store.link(longLink: long, option: .short, inviter: nil) == a)
        #expect(try await store.link(longLink: long + "y", option: .short, inviter: nil) == nil)
        try await store.close()
    }

    @Test func sqliteKeepsLinksAndCountsAcrossReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-links-\(UUID().uuidString).sqlite").path
        let a = Self.record("AbCd", "https://ex.page.link/?link=a", inviter: "u9")
        let key = LinkCounterKey(suffix: "AbCd", platform: .desktop, event: .click, day: 5)
        do {
            let store = try SQLiteLinkStore(path: path)
            _ = try await store.insert(a)
            try await store.addCounts([key: 4])
            try await store.close()
        }
        let reopened = try SQLiteLinkStore(path: path)
        #expect(try await reopened.link(suffix: "AbCd") == a)
        #expect(try await reopened.counts(suffix: "AbCd", fromDay: 0) == [LinkCount(key: key, count: 4)])
        try await reopened.close()
    }
}
