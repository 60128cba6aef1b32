import Foundation
import HearthPostgres
import HearthStore
import Testing

/// Two nodes (two `PostgresServer`s, each with its own connections) on one database: what one writes the other
/// reads, and racing writes neither both succeed where one must fail nor lose an update.
@Suite("PostgreSQL: several nodes", .enabled(if: PostgresTestServer.url != nil, "HEARTH_TEST_POSTGRES is not set"))
struct PostgresNodesTests {
    /// Runs `body` with the test run's server and a second one, shut down afterwards.
    func withTwoNodes(_ body: (PostgresServer, PostgresServer) async throws -> Void) async throws {
        let first = try await PostgresTestServer.server()
        let second = try await PostgresTestServer.anotherNode()
        do {
            try await body(first, second)
        } catch {
            try? await second.shutdown()
            throw error
        }
        try await second.shutdown()
    }

    static func row(_ uid: String, email: String?) -> AccountRow {
        AccountRow(uid: uid, email: email, phoneNumber: nil, record: Data("{}".utf8))
    }

    enum Outcome: Equatable, Sendable { case saved, conflict(AccountConflict), failed(String) }

    /// Saves each row on alternating nodes at once; every body reads first and waits, so all of them read before any commits.
    func raceSaves(_ rows: [AccountRow], identities: [AccountIdentity] = [], on stores: [PostgresAccountStore]) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            for (i, row) in rows.enumerated() {
                let store = stores[i % stores.count]
                group.addTask {
                    do {
                        try await store.transaction { tx in
                            _ = try tx.accountCount()
                            Thread.sleep(forTimeInterval: 0.05)
                            try tx.save(row, identities: identities, mustBeNew: true)
                        }
                        return .saved
                    } catch let conflict as AccountConflict {
                        return .conflict(conflict)
                    } catch {
                        return .failed("\(error)")
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// How many of `outcomes` are `outcome` (outside `#expect`, whose closures Swift 6.3 can confuse).
    static func count<T: Equatable>(_ outcomes: [T], _ outcome: T) -> Int {
        outcomes.filter { $0 == outcome }.count
    }

    @Test func twoNodesCreatingOneEmailAtOnceSucceedOnce() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let stores = [PostgresAccountStore(server: a, project: project), PostgresAccountStore(server: b, project: project)]
            let email = await raceSaves((0..<6).map { Self.row("u\($0)", email: "same@x.io") }, on: stores)
            #expect(Self.count(email, .saved) == 1, "\(email)")
            #expect(Self.count(email, .conflict(.email)) == 5, "the others get SQLite's error: \(email)")
            let afterEmail = try await stores[1].read { tx in try tx.accountCount() }
            #expect(afterEmail == 1)

            let uid = await raceSaves((0..<6).map { Self.row("same-uid", email: "e\($0)@x.io") }, on: stores)
            #expect(Self.count(uid, .saved) == 1, "\(uid)")
            #expect(Self.count(uid, .conflict(.uid)) == 5, "\(uid)")

            let google = AccountIdentity(providerId: "google.com", rawId: "g-1")
            let identity = await raceSaves((0..<6).map { Self.row("g\($0)", email: nil) }, identities: [google], on: stores)
            #expect(Self.count(identity, .saved) == 1, "\(identity)")
            #expect(Self.count(identity, .conflict(.identity)) == 5, "\(identity)")
            let afterAll = try await stores[0].read { tx in try tx.accountCount() }
            #expect(afterAll == 3)
        }
    }

    @Test func accountUpdatesFromTwoNodesAreNotLost() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let stores = [PostgresAccountStore(server: a, project: project), PostgresAccountStore(server: b, project: project)]
            try await stores[0].transaction { tx in
                try tx.save(AccountRow(uid: "u", email: "u@x.io", phoneNumber: nil, record: Data("0".utf8)), identities: [], mustBeNew: true)
            }
            // Each transaction reads the record (a counter here), adds one and saves it, as the auth service's updates do.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<40 {
                    let store = stores[i % 2]
                    group.addTask {
                        try await store.transaction { tx in
                            guard var row = try tx.account(uid: "u") else { return }
                            row.record = Data(String(Int(String(decoding: row.record, as: UTF8.self))! + 1).utf8)
                            try tx.save(row, identities: [], mustBeNew: false)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let record = try await stores[1].read { tx in try tx.account(uid: "u")?.record }
            #expect(record == Data("40".utf8))
        }
    }

    @Test func aOneTimeCodeIsTakenOnceAcrossNodes() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let stores = [PostgresAccountStore(server: a, project: project), PostgresAccountStore(server: b, project: project)]
            let hash = Data([1, 2, 3])
            try await stores[0].transaction { tx in try tx.saveCode(hash: hash, data: Data("{}".utf8), created: 1) }
            let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<6 {
                    let store = stores[i % 2]
                    group.addTask {
                        try await store.transaction { tx in
                            guard try tx.code(hash: hash) != nil else { return false }
                            Thread.sleep(forTimeInterval: 0.05)
                            try tx.deleteCode(hash: hash)
                            return true
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(taken.filter { $0 }.count == 1, "\(taken)")
        }
    }

    @Test func concurrentCountsFromTwoNodesAddUp() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let stores = [PostgresLinkStore(server: a, project: project), PostgresLinkStore(server: b, project: project)]
            let click = LinkCounterKey(suffix: "AbCd", platform: .ios, event: .click, day: 100)
            let redirect = LinkCounterKey(suffix: "AbCd", platform: .android, event: .redirect, day: 100)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<200 {
                    let store = stores[i % 2]
                    // Every other batch also carries the second key, in either order: no deadlock, nothing lost.
                    group.addTask { try await store.addCounts(i % 4 < 2 ? [click: 1] : [redirect: 1, click: 1]) }
                }
                try await group.waitForAll()
            }
            let counts = try await stores[0].counts(suffix: "AbCd", fromDay: 0)
            #expect(counts == [LinkCount(key: redirect, count: 100), LinkCount(key: click, count: 200)])
        }
    }

    @Test func linksRaceForOneSuffix() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let stores = [PostgresLinkStore(server: a, project: project), PostgresLinkStore(server: b, project: project)]
            let results = try await withThrowingTaskGroup(of: LinkInsertResult.self) { group in
                for i in 0..<10 {
                    let record = LinkRecord(
                        suffix: "Same", prefix: "https://ex.page.link", longLink: "https://ex.page.link/?link=\(i % 2)", option: .short,
                        created: 1)
                    group.addTask { try await stores[i % 2].insert(record) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Self.count(results, .inserted) == 1, "\(results)")
            let winner = try #require(try await stores[1].link(suffix: "Same"))
            // The same long link is reported as the winner's; the other long link finds the suffix taken.
            #expect(Self.count(results, .duplicate(winner)) == 4, "\(results)")
            #expect(Self.count(results, .suffixTaken) == 5, "\(results)")
        }
    }

    @Test func aCatalogWriteOnOneNodeIsReadOnTheOtherAndNoUpdateIsLost() async throws {
        try await withTwoNodes { a, b in
            let project = PostgresTestServer.freshNamespace()
            let catalogs = [PostgresObjectCatalog(server: a, project: project), PostgresObjectCatalog(server: b, project: project)]
            let record = ObjectRecord(
                bucket: "b", name: "photos/ü.jpg", generation: 7, blob: "blob", size: 3, md5Hash: "m", crc32c: "c",
                contentType: "image/jpeg", metadata: ["k": "v"], timeCreated: 1, updated: 2)
            try await catalogs[0].transaction { tx in
                try tx.saveBucket(BucketRecord(name: "b", timeCreated: 1))
                try tx.saveObject(record)
                try tx.saveUpload("up", data: Data([9]), created: 5)
            }
            #expect(try await catalogs[1].read { tx in try tx.object(bucket: "b", name: "photos/ü.jpg") } == record)
            #expect(try await catalogs[1].read { tx in try tx.upload("up") } == Data([9]))
            #expect(try await catalogs[1].read { tx in try tx.list(bucket: "b", ObjectListQuery(prefix: "photos/")) }.objects == [record])
            // Read-modify-write from both nodes at once (a metadata patch): every increment lands.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<40 {
                    let catalog = catalogs[i % 2]
                    group.addTask {
                        try await catalog.transaction { tx in
                            guard var current = try tx.object(bucket: "b", name: "photos/ü.jpg") else { return }
                            current.metageneration += 1
                            try tx.saveObject(current)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await catalogs[0].read { tx in try tx.object(bucket: "b", name: "photos/ü.jpg") }?.metageneration == 41)
        }
    }

    @Test func outboxesOfOneProjectAndOfTwoProjectsStayApart() async throws {
        let server = try await PostgresTestServer.server()
        let project = PostgresTestServer.freshNamespace()
        let accounts = PostgresAccountStore(server: server, project: project)
        let catalog = PostgresObjectCatalog(server: server, project: project)
        let otherProject = PostgresAccountStore(server: server, project: PostgresTestServer.freshNamespace())
        let id = try await accounts.transaction { tx in try tx.enqueueEvent(function: "auth", payload: [1], at: 1) }
        _ = try await catalog.transaction { tx in try tx.enqueueEvent(function: "storage", payload: [2], at: 1) }
        #expect(try await accounts.read { tx in try tx.dueEvents(now: 10, limit: 10) }.map(\.function) == ["auth"])
        #expect(try await catalog.read { tx in try tx.dueEvents(now: 10, limit: 10) }.map(\.function) == ["storage"])
        #expect(try await otherProject.read { tx in try tx.dueEvents(now: 10, limit: 10) }.isEmpty)
        #expect(try await catalog.read { tx in try tx.event(id) } == nil)
        // Accounts of one project are not another's.
        try await accounts.transaction { tx in try tx.save(Self.row("u", email: "a@x.io"), identities: [], mustBeNew: true) }
        #expect(try await otherProject.read { tx in try tx.account(email: "a@x.io") } == nil)
        try await otherProject.transaction { tx in try tx.save(Self.row("u", email: "a@x.io"), identities: [], mustBeNew: true) }
    }
}
