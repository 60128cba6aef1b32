import Foundation
import HearthCore
import HearthPostgres
import HearthSQLite
import HearthStore
import Testing

/// Uniform access to the outbox of a namespace store, an account store or an object catalog.
private struct OutboxHarness: Sendable {
    typealias WriteBody = @Sendable (any OutboxReader & OutboxWriter) throws -> any Sendable
    typealias ReadBody = @Sendable (any OutboxReader) throws -> any Sendable

    let writeAny: @Sendable (@escaping WriteBody) async throws -> any Sendable
    let readAny: @Sendable (@escaping ReadBody) async throws -> any Sendable
    let close: @Sendable () async throws -> Void

    /// A write transaction.
    @discardableResult
    func write<R: Sendable>(_ body: @escaping @Sendable (any OutboxReader & OutboxWriter) throws -> R) async throws -> R {
        try await writeAny { tx in try body(tx) } as! R
    }

    /// A read (a snapshot for the namespace store).
    func read<R: Sendable>(_ body: @escaping @Sendable (any OutboxReader) throws -> R) async throws -> R {
        try await readAny { tx in try body(tx) } as! R
    }
}

/// Every store with an outbox, in memory, in SQLite and (when `HEARTH_TEST_POSTGRES` is set) in PostgreSQL.
enum OutboxHost: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memoryStore, sqliteStore, postgresStore, memoryAccounts, sqliteAccounts, postgresAccounts, memoryCatalog, sqliteCatalog,
        postgresCatalog

    static var allCases: [OutboxHost] {
        let postgres = PostgresTestServer.url != nil
        return [.memoryStore, .sqliteStore] + (postgres ? [.postgresStore] : []) + [.memoryAccounts, .sqliteAccounts]
            + (postgres ? [.postgresAccounts] : []) + [.memoryCatalog, .sqliteCatalog] + (postgres ? [.postgresCatalog] : [])
    }

    var testDescription: String { rawValue }

    var isSQLite: Bool { self == .sqliteStore || self == .sqliteAccounts || self == .sqliteCatalog }

    /// Opening again with the same folder finds what was written: SQLite's files, or the PostgreSQL project the folder names.
    var reopens: Bool { isSQLite || self == .postgresAccounts || self == .postgresCatalog }

    /// The PostgreSQL project of `folder`: a new store object on it reads what an earlier one wrote.
    static func project(of folder: String) -> String { "t_" + URL(fileURLWithPath: folder).lastPathComponent }

    /// Opens the store; SQLite ones in `folder` (a fresh one when nil), so a test can reopen the file.
    fileprivate func open(folder: String? = nil) async throws -> OutboxHarness {
        let dir = folder ?? Backend.temporaryFolder()
        switch self {
        case .memoryStore, .sqliteStore, .postgresStore:
            let backend: Backend = self == .memoryStore ? .memory : self == .sqliteStore ? .sqlite : .postgres
            let store = try await backend.makeStore(folder: dir)
            return OutboxHarness(
                writeAny: { body in try await store.write { tx in try body(tx) } },
                readAny: { body in try await store.snapshot { tx in try body(tx) } },
                close: { try await store.close() })
        case .memoryAccounts, .sqliteAccounts:
            let store: any AccountStore = self == .memoryAccounts ? MemoryAccountStore() : try SQLiteAccountStore(path: dir + "/accounts.sqlite")
            return OutboxHarness(
                writeAny: { body in try await store.transaction { tx in try body(tx) } },
                readAny: { body in try await store.read { tx in try body(tx) } },
                close: {})
        case .postgresAccounts:
            let store = PostgresAccountStore(server: try await PostgresTestServer.server(), project: Self.project(of: dir))
            return OutboxHarness(
                writeAny: { body in try await store.transaction { tx in try body(tx) } },
                readAny: { body in try await store.read { tx in try body(tx) } },
                close: {})
        case .postgresCatalog:
            let catalog = PostgresObjectCatalog(server: try await PostgresTestServer.server(), project: Self.project(of: dir))
            return OutboxHarness(
                writeAny: { body in try await catalog.transaction { tx in try body(tx) } },
                readAny: { body in try await catalog.read { tx in try body(tx) } },
                close: {})
        case .memoryCatalog, .sqliteCatalog:
            let catalog: any ObjectCatalog =
                self == .memoryCatalog ? MemoryObjectCatalog() : try SQLiteObjectCatalog(path: dir + "/storage.sqlite", durable: false)
            return OutboxHarness(
                writeAny: { body in try await catalog.transaction { tx in try body(tx) } },
                readAny: { body in try await catalog.read { tx in try body(tx) } },
                close: {})
        }
    }
}

@Suite("Outbox conformance")
struct OutboxConformanceTests {
    struct Boom: Error {}

    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Enqueues `fn0…fn(n-1)` due at `at(i)`; returns their ids.
    private func enqueue(_ box: OutboxHarness, _ n: Int, at: @escaping @Sendable (Int) -> Int64) async throws -> [Int64] {
        try await box.write { tx in
            try (0..<n).map { i in try tx.enqueueEvent(function: "fn\(i)", payload: Array("p\(i)".utf8), at: at(i)) }
        }
    }

    @Test(arguments: OutboxHost.allCases)
    func enqueuedEventsReadBackWithIncreasingIDs(host: OutboxHost) async throws {
        let box = try await host.open()
        let payload: [UInt8] = [0, 1, 0xFF, 0xFE, 0x7B, 0x22]  // not valid UTF-8: stored as bytes
        let first = try await box.write { tx in try tx.enqueueEvent(function: "onCreate", payload: payload, at: 100) }
        let more = try await enqueue(box, 5, at: { _ in 50 })
        #expect(([first] + more) == ([first] + more).sorted() && Set([first] + more).count == 6)
        let event = try await box.read { tx in try tx.event(first) }
        #expect(event == OutboxEvent(id: first, function: "onCreate", payload: payload, createdAt: 100, nextAttemptAt: 100))
        #expect(try await box.read { tx in try tx.event(more.last! + 1000) } == nil)
        // Ids keep increasing after every event is finished (never reused).
        try await box.write { tx in try tx.finishEvents([first] + more) }
        let next = try await box.write { tx in try tx.enqueueEvent(function: "x", payload: [], at: 1) }
        #expect(next > more.last!)
        #expect(try await box.read { tx in try tx.event(next) }?.payload == [])
    }

    @Test(arguments: OutboxHost.allCases)
    func dueEventsRespectTimeLimitAndOrder(host: OutboxHost) async throws {
        let box = try await host.open()
        // Due times out of id order: 300, 100, 200, 100, 400.
        let times: [Int64] = [300, 100, 200, 100, 400]
        let ids = try await enqueue(box, times.count, at: { times[$0] })
        #expect(try await box.read { tx in try tx.dueEvents(now: 99, limit: 10) }.isEmpty)
        #expect(try await box.read { tx in try tx.dueEvents(now: 100, limit: 10) }.map(\.id) == [ids[1], ids[3]])
        #expect(try await box.read { tx in try tx.dueEvents(now: 250, limit: 10) }.map(\.id) == [ids[1], ids[2], ids[3]])
        // Oldest (lowest id) first, not earliest due first.
        #expect(try await box.read { tx in try tx.dueEvents(now: 1000, limit: 10) }.map(\.id) == ids)
        #expect(try await box.read { tx in try tx.dueEvents(now: 1000, limit: 2) }.map(\.id) == [ids[0], ids[1]])
        #expect(try await box.read { tx in try tx.dueEvents(now: 250, limit: 1) }.map(\.id) == [ids[1]])
        #expect(try await box.read { tx in try tx.dueEvents(now: 1000, limit: 0) }.isEmpty)
        let all = try await box.read { tx in try tx.dueEvents(now: .max, limit: 100) }
        #expect(all.map(\.function) == ["fn0", "fn1", "fn2", "fn3", "fn4"])
        #expect(all.map { String(decoding: $0.payload, as: UTF8.self) } == ["p0", "p1", "p2", "p3", "p4"])
        #expect(all.allSatisfy { $0.attempts == 0 && $0.lastError == nil && !$0.dead && $0.createdAt == $0.nextAttemptAt })
        #expect(try await box.read { tx in try tx.nextEventTime() } == 100)
    }

    @Test(arguments: OutboxHost.allCases)
    func emptyOutbox(host: OutboxHost) async throws {
        let box = try await host.open()
        #expect(try await box.read { tx in try tx.nextEventTime() } == nil)
        #expect(try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }.isEmpty)
        #expect(try await box.read { tx in try tx.deadEvents(after: 0, limit: 10) }.isEmpty)
        #expect(try await box.read { tx in try tx.event(1) } == nil)
        #expect(try await box.read { tx in try tx.isClaimed("k") } == false)
        // Operations on unknown ids do nothing.
        let revived = try await box.write { tx in
            try tx.finishEvents([1, 2])
            try tx.retryEvent(1, attempts: 1, at: 5, error: "e")
            try tx.buryEvent(2, attempts: 1, error: "e")
            return try tx.reviveEvent(1, at: 5)
        }
        #expect(revived == false)
        #expect(try await box.read { tx in try tx.event(1) } == nil)
    }

    @Test(arguments: OutboxHost.allCases)
    func retryMovesTheNextAttemptAndRecordsTheFailure(host: OutboxHost) async throws {
        let box = try await host.open()
        let ids = try await enqueue(box, 3, at: { _ in 100 })
        try await box.write { tx in try tx.retryEvent(ids[0], attempts: 1, at: 500, error: "timeout") }
        let retried = try await box.read { tx in try tx.event(ids[0]) }
        #expect(retried == OutboxEvent(
            id: ids[0], function: "fn0", payload: bytes("p0"), createdAt: 100, attempts: 1, nextAttemptAt: 500, lastError: "timeout"))
        #expect(try await box.read { tx in try tx.dueEvents(now: 499, limit: 10) }.map(\.id) == [ids[1], ids[2]])
        #expect(try await box.read { tx in try tx.dueEvents(now: 500, limit: 10) }.map(\.id) == ids)
        #expect(try await box.read { tx in try tx.nextEventTime() } == 100)
        try await box.write { tx in
            try tx.retryEvent(ids[1], attempts: 1, at: 300, error: "a")
            try tx.retryEvent(ids[2], attempts: 1, at: 700, error: "b")
        }
        #expect(try await box.read { tx in try tx.nextEventTime() } == 300)
        // A second failure overwrites the first.
        try await box.write { tx in try tx.retryEvent(ids[0], attempts: 2, at: 900, error: "refused") }
        let again = try await box.read { tx in try tx.event(ids[0]) }
        #expect(again?.attempts == 2 && again?.nextAttemptAt == 900 && again?.lastError == "refused")
        #expect(again?.createdAt == 100 && again?.dead == false)
        // The retry time may also move back (an admin's "run now").
        try await box.write { tx in try tx.retryEvent(ids[0], attempts: 2, at: 10, error: "refused") }
        #expect(try await box.read { tx in try tx.nextEventTime() } == 10)
    }

    @Test(arguments: OutboxHost.allCases)
    func buriedEventsAreDeadLettersPagedByID(host: OutboxHost) async throws {
        let box = try await host.open()
        let ids = try await enqueue(box, 6, at: { Int64(100 + $0) })
        try await box.write { tx in
            for i in [0, 2, 3, 5] { try tx.buryEvent(ids[i], attempts: 5, error: "gave up \(i)") }
        }
        #expect(try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }.map(\.id) == [ids[1], ids[4]])
        let dead = try await box.read { tx in try tx.deadEvents(after: 0, limit: 10) }
        #expect(dead.map(\.id) == [ids[0], ids[2], ids[3], ids[5]])
        #expect(dead.allSatisfy { $0.dead && $0.attempts == 5 })
        #expect(dead.map(\.lastError) == ["gave up 0", "gave up 2", "gave up 3", "gave up 5"])
        #expect(dead[1] == OutboxEvent(
            id: ids[2], function: "fn2", payload: bytes("p2"), createdAt: 102, attempts: 5, nextAttemptAt: 102, lastError: "gave up 2",
            dead: true))
        // Paging.
        let page1 = try await box.read { tx in try tx.deadEvents(after: 0, limit: 2) }
        #expect(page1.map(\.id) == [ids[0], ids[2]])
        let page2 = try await box.read { tx in try tx.deadEvents(after: page1.last!.id, limit: 2) }
        #expect(page2.map(\.id) == [ids[3], ids[5]])
        #expect(try await box.read { tx in try tx.deadEvents(after: page2.last!.id, limit: 2) }.isEmpty)
        #expect(try await box.read { tx in try tx.deadEvents(after: ids[1], limit: 10) }.map(\.id) == [ids[2], ids[3], ids[5]])
        // Dead letters do not count for the next wake-up.
        #expect(try await box.read { tx in try tx.nextEventTime() } == 101)
        try await box.write { tx in try tx.finishEvents([ids[1], ids[4]]) }
        #expect(try await box.read { tx in try tx.nextEventTime() } == nil)
        // `event(_:)` still finds a dead letter.
        #expect(try await box.read { tx in try tx.event(ids[3]) }?.dead == true)
    }

    @Test(arguments: OutboxHost.allCases)
    func reviveMakesADeadLetterLiveAgain(host: OutboxHost) async throws {
        let box = try await host.open()
        let ids = try await enqueue(box, 3, at: { _ in 100 })
        try await box.write { tx in try tx.buryEvent(ids[1], attempts: 7, error: "boom") }
        let (revived, live, missing) = try await box.write { tx in
            (try tx.reviveEvent(ids[1], at: 2000), try tx.reviveEvent(ids[0], at: 2000), try tx.reviveEvent(ids[2] + 100, at: 2000))
        }
        #expect(revived)
        #expect(!live, "a live event is not revived")
        #expect(!missing, "an unknown id is not revived")
        let event = try await box.read { tx in try tx.event(ids[1]) }
        #expect(event?.dead == false && event?.attempts == 0 && event?.nextAttemptAt == 2000)
        #expect(event?.createdAt == 100 && event?.function == "fn1")
        // The live event was left alone.
        #expect(try await box.read { tx in try tx.event(ids[0]) }?.nextAttemptAt == 100)
        #expect(try await box.read { tx in try tx.deadEvents(after: 0, limit: 10) }.isEmpty)
        #expect(try await box.read { tx in try tx.dueEvents(now: 1999, limit: 10) }.map(\.id) == [ids[0], ids[2]])
        #expect(try await box.read { tx in try tx.dueEvents(now: 2000, limit: 10) }.map(\.id) == ids)
        // Reviving twice: the second time there is no dead letter.
        #expect(try await box.write { tx in try tx.reviveEvent(ids[1], at: 3000) } == false)
        #expect(try await box.read { tx in try tx.event(ids[1]) }?.nextAttemptAt == 2000)
    }

    @Test(arguments: OutboxHost.allCases)
    func finishRemovesLiveAndDeadEvents(host: OutboxHost) async throws {
        let box = try await host.open()
        let ids = try await enqueue(box, 4, at: { _ in 100 })
        try await box.write { tx in try tx.buryEvent(ids[3], attempts: 1, error: "x") }
        try await box.write { tx in try tx.finishEvents([ids[0], ids[2], ids[3]]) }
        #expect(try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }.map(\.id) == [ids[1]])
        #expect(try await box.read { tx in try tx.deadEvents(after: 0, limit: 10) }.isEmpty)
        #expect(try await box.read { tx in try tx.event(ids[0]) } == nil)
        try await box.write { tx in try tx.finishEvents([]) }
        try await box.write { tx in try tx.finishEvents([ids[0]]) }  // again: nothing happens
        #expect(try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }.map(\.id) == [ids[1]])
    }

    @Test(arguments: OutboxHost.allCases)
    func claimKeyOnceAndForget(host: OutboxHost) async throws {
        let box = try await host.open()
        #expect(try await box.write { tx in try tx.claimKey("a", at: 100) })
        #expect(try await box.write { tx in try tx.claimKey("a", at: 500) } == false)
        #expect(try await box.write { tx in try tx.claimKey("b", at: 200) })
        #expect(try await box.write { tx in try tx.claimKey("c", at: 300) })
        #expect(try await box.write { tx in try tx.claimKey("A", at: 300) }, "keys are case-sensitive")
        #expect(try await box.read { tx in try tx.isClaimed("a") })
        #expect(try await box.read { tx in try tx.isClaimed("z") } == false)
        // Claimed twice in one transaction: the second sees the first.
        let twice = try await box.write { tx in (try tx.claimKey("d", at: 300), try tx.claimKey("d", at: 300)) }
        #expect(twice == (true, false))
        // Forget keys claimed before 300 ("a" at 100, not 500: a failed re-claim does not refresh it; "b" at 200).
        try await box.write { tx in try tx.forgetKeys(claimedBefore: 300) }
        let claimed = try await box.read { tx in try ["a", "b", "c", "d", "A"].map { try tx.isClaimed($0) } }
        #expect(claimed == [false, false, true, true, true])
        #expect(try await box.write { tx in try tx.claimKey("a", at: 400) }, "a forgotten key can be claimed again")
        try await box.write { tx in try tx.forgetKeys(claimedBefore: .max) }
        #expect(try await box.read { tx in try ["a", "c", "d", "A"].contains { try tx.isClaimed($0) } } == false)
    }

    @Test(arguments: OutboxHost.allCases)
    func aFailedTransactionKeepsNothing(host: OutboxHost) async throws {
        let box = try await host.open()
        let kept = try await box.write { tx in try tx.enqueueEvent(function: "kept", payload: [1], at: 1) }
        await #expect(throws: Boom.self) {
            _ = try await box.write { tx -> Int in
                try tx.enqueueEvent(function: "lost", payload: [2], at: 1)
                _ = try tx.claimKey("lost-key", at: 1)
                try tx.finishEvents([kept])
                throw Boom()
            }
        }
        #expect(try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }.map(\.function) == ["kept"])
        #expect(try await box.read { tx in try tx.isClaimed("lost-key") } == false)
        #expect(try await box.write { tx in try tx.claimKey("lost-key", at: 2) })
    }

    @Test(arguments: OutboxHost.allCases.filter(\.reopens))
    func eventsAndKeysSurviveReopening(host: OutboxHost) async throws {
        let folder = Backend.temporaryFolder()
        let ids: [Int64]
        do {
            let box = try await host.open(folder: folder)
            let enqueued = try await enqueue(box, 4, at: { Int64(10 * ($0 + 1)) })
            ids = enqueued
            try await box.write { tx in
                try tx.retryEvent(enqueued[1], attempts: 2, at: 99, error: "later")
                try tx.buryEvent(enqueued[2], attempts: 9, error: "dead")
                try tx.finishEvents([enqueued[3]])
                _ = try tx.claimKey("k1", at: 5)
            }
            try await box.close()
        }
        let box = try await host.open(folder: folder)
        let due = try await box.read { tx in try tx.dueEvents(now: .max, limit: 10) }
        #expect(due == [
            OutboxEvent(id: ids[0], function: "fn0", payload: bytes("p0"), createdAt: 10, nextAttemptAt: 10),
            OutboxEvent(
                id: ids[1], function: "fn1", payload: bytes("p1"), createdAt: 20, attempts: 2, nextAttemptAt: 99, lastError: "later"),
        ])
        let dead = try await box.read { tx in try tx.deadEvents(after: 0, limit: 10) }
        #expect(dead.map(\.id) == [ids[2]])
        #expect(dead.first?.lastError == "dead" && dead.first?.attempts == 9)
        #expect(try await box.read { tx in try tx.isClaimed("k1") })
        #expect(try await box.write { tx in try tx.claimKey("k1", at: 6) } == false)
        // New ids continue after the old ones, even after the newest was finished.
        let next = try await box.write { tx in try tx.enqueueEvent(function: "n", payload: [], at: 1) }
        #expect(next > ids[3])
    }

    @Test func sqliteStoreOutboxSurvivesReopeningWithItsData() async throws {
        let folder = Backend.temporaryFolder()
        do {
            let store = try await Backend.sqlite.makeStore(folder: folder)
            try await store.write { tx in
                try tx.set(Path("a"), json("1"))
                try tx.enqueueEvent(function: "f", payload: [7], at: 3)
            }
            try await store.close()
        }
        let again = try await Backend.sqlite.makeStore(folder: folder)
        #expect(try await again.getJSON("a") == "1")
        #expect(try await again.snapshot { try $0.dueEvents(now: 3, limit: 5) }.map(\.payload) == [[7]])
    }

    @Test(arguments: OutboxHost.allCases)
    func countsOfWaitingEventsAndDeadLettersStopAtTheLimit(host: OutboxHost) async throws {
        let box = try await host.open()
        // One closure for every read (closures in `#expect` arguments can share a symbol; see scripts/check-test-closures).
        @Sendable func counts(_ limit: Int) async throws -> OutboxCounts {
            try await box.read { tx in try tx.outboxCounts(limit: limit) }
        }
        #expect(try await counts(10) == OutboxCounts(waiting: 0, dead: 0))
        let ids = try await enqueue(box, 5, at: { Int64(100 + $0) })
        try await box.write { tx in
            try tx.buryEvent(ids[1], attempts: 3, error: "gave up")
            // A retry later than any `now` still waits.
            try tx.retryEvent(ids[2], attempts: 1, at: .max - 1, error: "again")
        }
        #expect(try await counts(10) == OutboxCounts(waiting: 4, dead: 1))
        #expect(try await counts(2) == OutboxCounts(waiting: 2, dead: 1))
        try await box.write { tx in try tx.finishEvents([ids[0], ids[3]]) }
        #expect(try await counts(10) == OutboxCounts(waiting: 2, dead: 1))
        try await box.close()
    }
}
