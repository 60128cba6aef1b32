import Foundation
import HearthPostgres
import HearthStore
import Testing

/// The attempt stores behind the sign-in and message limits: in memory always, PostgreSQL when `HEARTH_TEST_POSTGRES`
/// is set (SQLite's single node counts in memory). Every test uses a fresh store (a fresh project on PostgreSQL).
enum AttemptBacking: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, postgres

    static var allCases: [AttemptBacking] { PostgresTestServer.url == nil ? [.memory] : [.memory, .postgres] }

    var testDescription: String { rawValue }

    /// A store; `bounded` makes it drop expired keys as early as it can (memory: room for two keys a scope;
    /// PostgreSQL: a purge at every write), so a test sees storage stay bounded.
    func store(bounded: Bool = false) async throws -> any AttemptStore {
        switch self {
        case .memory: return bounded ? MemoryAttemptStore(capacity: 2) : MemoryAttemptStore()
        case .postgres:
            return PostgresAttemptStore(
                server: try await PostgresTestServer.server(), project: PostgresTestServer.freshNamespace(),
                purgeInterval: bounded ? 0 : 60_000)
        }
    }

    /// How many keys of `scope` the store holds, expired ones included until it drops them.
    static func storedKeys(_ store: any AttemptStore, scope: String) async throws -> Int {
        switch store {
        case let memory as MemoryAttemptStore: return memory.keyCount(scope: scope)
        case let postgres as PostgresAttemptStore: return try await postgres.storedKeyCount()
        default: return -1
        }
    }
}

@Suite("Attempt stores: the rate limits' sliding windows")
struct AttemptStoreTests {
    static let t0: Int64 = 1_700_000_000_000
    static let three = AttemptLimit(scope: "password", limit: 3, window: 1000)

    /// `reserve` results for each time in `times`.
    static func reserve(_ store: any AttemptStore, _ key: String, at times: [Int64], under limit: AttemptLimit = three) async throws -> [Bool] {
        var taken: [Bool] = []
        for time in times { taken.append(try await store.reserve(key, under: limit, now: t0 + time)) }
        return taken
    }

    @Test(arguments: AttemptBacking.allCases)
    func reserveTakesUpToTheLimitInASlidingWindow(_ backing: AttemptBacking) async throws {
        let store = try await backing.store()
        let taken = try await Self.reserve(store, "ada@x.io", at: [0, 100, 200, 500, 999])
        #expect(taken == [true, true, true, false, false])
        // A refused attempt took nothing: still three in the window.
        #expect(try await store.count("ada@x.io", under: Self.three, now: Self.t0 + 999) == 3)
        // At 1000 the attempt made at 0 left the window: room for one, then full again until 1100.
        let later = try await Self.reserve(store, "ada@x.io", at: [1000, 1001, 1099, 1100])
        #expect(later == [true, false, false, true])
        #expect(try await store.count("ada@x.io", under: Self.three, now: Self.t0 + 1100) == 3)
        #expect(try await store.count("ada@x.io", under: Self.three, now: Self.t0 + 5000) == 0)
    }

    @Test(arguments: AttemptBacking.allCases)
    func releaseGivesOneBackAndResetClearsTheKey(_ backing: AttemptBacking) async throws {
        let store = try await backing.store()
        #expect(try await Self.reserve(store, "k", at: [0, 10, 10, 20]) == [true, true, true, false])
        // One of the two attempts at 10 comes back; a time with no attempt gives nothing.
        try await store.release("k", under: Self.three, at: Self.t0 + 10)
        try await store.release("k", under: Self.three, at: Self.t0 + 15)
        #expect(try await store.count("k", under: Self.three, now: Self.t0 + 20) == 2)
        #expect(try await Self.reserve(store, "k", at: [20, 21]) == [true, false])
        try await store.reset("k", under: Self.three)
        #expect(try await store.count("k", under: Self.three, now: Self.t0 + 30) == 0)
        #expect(try await Self.reserve(store, "k", at: [30, 31, 32, 33]) == [true, true, true, false])
        // Releasing or resetting a key that has nothing is no error.
        try await store.release("other", under: Self.three, at: Self.t0)
        try await store.reset("other", under: Self.three)
    }

    @Test(arguments: AttemptBacking.allCases)
    func keysAndScopesCountApart(_ backing: AttemptBacking) async throws {
        let store = try await backing.store()
        let address = AttemptLimit(scope: "address", limit: 3, window: 1000)
        #expect(try await Self.reserve(store, "k", at: [0, 1, 2, 3]) == [true, true, true, false])
        // The same key under another scope, and another key under the same scope, start empty.
        #expect(try await Self.reserve(store, "k", at: [4, 5, 6, 7], under: address) == [true, true, true, false])
        #expect(try await Self.reserve(store, "K", at: [8]) == [true])
        try await store.reset("k", under: address)
        #expect(try await store.count("k", under: Self.three, now: Self.t0 + 9) == 3)
        // Another store (on PostgreSQL: another project) counts apart too.
        let other = try await backing.store()
        #expect(try await other.count("k", under: Self.three, now: Self.t0 + 9) == 0)
    }

    @Test(arguments: AttemptBacking.allCases)
    func recordCountsWhateverTheCount(_ backing: AttemptBacking) async throws {
        let store = try await backing.store()
        let hourly = AttemptLimit(scope: "message", limit: 2, window: 3_600_000)
        for time: Int64 in [0, 1, 2] { try await store.record("+15550100", under: hourly, now: Self.t0 + time) }
        #expect(try await store.count("+15550100", under: hourly, now: Self.t0 + 3) == 3)
        // A full window refuses a reserve too.
        #expect(try await store.reserve("+15550100", under: hourly, now: Self.t0 + 4) == false)
        #expect(try await store.count("+15550100", under: hourly, now: Self.t0 + 3_600_001) == 1)
        #expect(try await store.count("+15550100", under: hourly, now: Self.t0 + 3_600_002) == 0)
    }

    @Test(arguments: AttemptBacking.allCases)
    func expiredKeysAreDropped(_ backing: AttemptBacking) async throws {
        let store = try await backing.store(bounded: true)
        #expect(try await Self.reserve(store, "a", at: [0]) == [true])
        try await store.record("b", under: Self.three, now: Self.t0 + 1)
        #expect(try await AttemptBacking.storedKeys(store, scope: "password") == 2)
        // Long after both expired, a new key makes the store drop them; the new key's attempt counts.
        #expect(try await Self.reserve(store, "c", at: [5000]) == [true])
        #expect(try await AttemptBacking.storedKeys(store, scope: "password") == 1)
        #expect(try await store.count("c", under: Self.three, now: Self.t0 + 5000) == 1)
        // Later still: "c" expired and goes when new keys arrive; the live ones stay.
        #expect(try await Self.reserve(store, "d", at: [9000]) == [true])
        try await store.record("e", under: Self.three, now: Self.t0 + 9001)
        #expect(try await AttemptBacking.storedKeys(store, scope: "password") == 2)
        #expect(try await store.count("d", under: Self.three, now: Self.t0 + 9001) == 1)
        #expect(try await store.count("e", under: Self.three, now: Self.t0 + 9001) == 1)
    }

    @Test(arguments: AttemptBacking.allCases)
    func concurrentReservesNeverPassTheLimit(_ backing: AttemptBacking) async throws {
        let store = try await backing.store()
        let seven = AttemptLimit(scope: "password", limit: 7, window: 60_000)
        let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<50 {
                group.addTask { try await store.reserve("k", under: seven, now: Self.t0 + Int64(i % 5)) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let granted = taken.filter { $0 }.count
        #expect(granted == 7, "\(taken)")
        #expect(try await store.count("k", under: seven, now: Self.t0 + 10) == 7)
    }
}

/// Two nodes (two `PostgresServer`s) counting one project's attempts: one count for both.
@Suite("PostgreSQL: attempts shared by nodes", .enabled(if: PostgresTestServer.url != nil, "HEARTH_TEST_POSTGRES is not set"))
struct PostgresAttemptNodesTests {
    @Test func reservesRacingOnTwoNodesTakeTheLimitOnce() async throws {
        let first = try await PostgresTestServer.server()
        let second = try await PostgresTestServer.anotherNode()
        let project = PostgresTestServer.freshNamespace()
        let stores = [PostgresAttemptStore(server: first, project: project), PostgresAttemptStore(server: second, project: project)]
        let ten = AttemptLimit(scope: "password", limit: 10, window: 300_000)
        let now = AttemptStoreTests.t0
        do {
            for round in 0..<3 {
                let key = "racer-\(round)@x.io"
                let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for i in 0..<40 {
                        group.addTask { try await stores[i % 2].reserve(key, under: ten, now: now) }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                let granted = taken.filter { $0 }.count
                #expect(granted == 10, "round \(round): \(taken)")
                let seenByFirst = try await stores[0].count(key, under: ten, now: now + 1)
                let seenBySecond = try await stores[1].count(key, under: ten, now: now + 1)
                #expect(seenByFirst == 10 && seenBySecond == 10)
            }
            // A release on one node makes room on the other; a reset on the other clears it for both.
            try await stores[0].release("racer-0@x.io", under: ten, at: now)
            #expect(try await stores[1].reserve("racer-0@x.io", under: ten, now: now + 4))
            #expect(try await stores[0].reserve("racer-0@x.io", under: ten, now: now + 5) == false)
            try await stores[1].reset("racer-0@x.io", under: ten)
            #expect(try await stores[0].count("racer-0@x.io", under: ten, now: now + 6) == 0)
        } catch {
            try? await second.shutdown()
            throw error
        }
        try await second.shutdown()
    }
}
