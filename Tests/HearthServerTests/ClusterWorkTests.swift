import Foundation
import HearthCore
import HearthDatabase
import HearthFunctions
import HearthPostgres
import HearthStore
import Logging
import Synchronization
import Testing

/// Work that several nodes share through one PostgreSQL: outbox events each run by one node at a
/// time, and scheduled ticks each run once.
@Suite(
    "Cluster-wide work on PostgreSQL", .serialized,
    .enabled(if: TestCluster.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the cluster tests (.ci/run does)"))
struct ClusterWorkTests {
    final class Taken: Sendable {
        let ids = Mutex<[Int64]>([])
    }

    static let logger = Logger(label: "cluster-work", factory: { _ in SwiftLogNoOpLogHandler() })

    static func node() async throws -> PostgresServer {
        try await PostgresServer(location: PostgresLocation(url: try #require(TestCluster.url)), connections: 6, logger: logger)
    }

    @Test func twoNodesLeasingAtOnceNeverTakeTheSameEventAndAnUnsettledOneComesBack() async throws {
        let (a, b) = (try await Self.node(), try await Self.node())
        let namespace = "w_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let storeA = try await PostgresStoreFactory(server: a).open(namespace: namespace)
        let storeB = try await PostgresStoreFactory(server: b).open(namespace: namespace)
        let ids = try await storeA.write { tx in try (0..<60).map { i in try tx.enqueueEvent(function: "f", payload: [UInt8(i)], at: 1_000) } }
        let leasers = [try #require(storeA as? any OutboxLeasing), try #require(storeB as? any OutboxLeasing)]
        let taken = Taken()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for leaser in leasers {
                for _ in 0..<3 {
                    group.addTask {
                        while true {
                            let batch = try await leaser.leaseDueEvents(now: 2_000, limit: 4, lease: 10_000)
                            if batch.isEmpty { return }
                            taken.ids.withLock { $0 += batch.map(\.id) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = taken.ids.withLock { $0 }
        #expect(all.count == ids.count)
        #expect(Set(all) == Set(ids))
        // Held: nobody gets them again before the lease ends…
        #expect(try await leasers[1].leaseDueEvents(now: 11_999, limit: 100, lease: 10_000).isEmpty)
        // …a settled one is gone for good, and an unsettled one (its node died) is due again after it.
        try await storeB.write { tx in try tx.finishEvents(Array(ids.dropFirst())) }
        let again = try await leasers[1].leaseDueEvents(now: 12_000, limit: 100, lease: 10_000)
        #expect(again.map(\.id) == [ids[0]])
        try await a.shutdown()
        try await b.shutdown()
    }

    @Test func aScheduledTickIsClaimedByOneNodeOnly() async throws {
        let (a, b) = (try await Self.node(), try await Self.node())
        let namespace = "s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let states = [a, b].map { server in
            NamespaceScheduleState(
                registry: NamespaceRegistry(
                    factory: PostgresStoreFactory(server: server), clock: { 0 }, initialRules: .denyAll, defaultNamespace: namespace),
                namespace: namespace)
        }
        for tick in 1...5 {
            let scheduled = Date(timeIntervalSince1970: Double(tick * 60))
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for state in states {
                    for _ in 0..<4 { group.addTask { try await state.claimStart(job: "hourly", scheduled: scheduled) } }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1, "tick \(tick): \(wins) claims")
        }
        #expect(try await states[1].lastScheduledTime(job: "hourly") == Date(timeIntervalSince1970: 300))
        try await a.shutdown()
        try await b.shutdown()
    }
}
