import Foundation
import HearthCore
import HearthFunctions
import HearthStore
import HearthTesting
import HearthWire
import NIOHTTP1
import Synchronization
import Testing

/// `AdminDatabase.atomically`: reads and writes of several locations decided inside the database's writer,
/// so contended counters and balances hold without retries.
@Suite("Atomic writes from functions")
struct AtomicWriteTests {
    typealias Live = FunctionsLiveTests

    /// A budget of 100 coins, 10 per call, and 60 callers at once: exactly 10 are paid, the stats count 10
    /// awards, the ledger has 10 entries, and the 50 others are refused with the callable status the body threw.
    @Test func concurrentCallsNeverOverspendABudget() async throws {
        var functions = Functions()
        try functions.callable("spend") { (_: JSONValue, request, context) -> JSONValue in
            let uid = request.auth?.uid ?? "anon"
            let key = "e\(UInt64.random(in: 0 ... .max))"
            return try await context.database.atomically { data, writes in
                let spent = try data.value("stats/spent").int ?? 0
                guard spent + 10 <= 100 else { throw CallableError(.failedPrecondition, "Budget spent") }
                writes["stats/spent"] = .int(spent + 10)
                writes["stats/awards"] = .int((try data.value("stats/awards").int ?? 0) + 1)
                writes["ledger/\(uid)/\(key)"] = .object([JSONMember("amount", .int(10)), JSONMember("at", .int(data.now))])
                return .int(spent + 10)
            }
        }
        try await Live().withServer(functions, auth: Live.auth()) { port in
            let (_, token) = try await Live.signUp(port)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<60 {
                    group.addTask {
                        try await Live.send(port, .POST, "/functions/spend", #"{"data":{}}"#, headers: Live.json + [("Authorization", "Bearer \(token)")])
                            .status
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: 10, 400: 50], "\(statuses)")
            let stats = try await Live.send(port, .GET, "/stats.json", headers: Live.owner).json
            #expect(stats?["spent"] == .int(100))
            #expect(stats?["awards"] == .int(10))
            guard case .object(let users)? = try await Live.send(port, .GET, "/ledger.json", headers: Live.owner).json,
                case .object(let entries)? = users.first?.value
            else {
                Issue.record("no ledger")
                return
            }
            #expect(entries.count == 10)
        }
    }

    /// A body that throws writes nothing, even what it recorded before throwing; one that records nothing
    /// commits nothing and still returns its value; server values resolve to the write's `now`.
    @Test func aThrowingBodyWritesNothingAndServerValuesResolve() async throws {
        let seenNow = Mutex<Int64>(0)
        var functions = Functions()
        try functions.callable("partial") { (_: JSONValue, _, context) -> JSONValue in
            try await context.database.atomically { _, writes in
                writes["a"] = .int(1)
                throw CallableError(.aborted, "Changed my mind")
            }
        }
        try functions.callable("nothing") { (_: JSONValue, _, context) -> JSONValue in
            try await context.database.atomically { data, _ in try data.value("b") }
        }
        try functions.callable("stamp") { (_: JSONValue, _, context) -> JSONValue in
            try await context.database.atomically { data, writes in
                seenNow.withLock { $0 = data.now }
                writes["/b/at"] = .object([JSONMember(".sv", .string("timestamp"))])
                writes["b/now"] = .int(data.now)
                return .null
            }
        }
        try await Live().withServer(functions) { port in
            let refused = try await Live.send(port, .POST, "/functions/partial", #"{"data":{}}"#, headers: Live.json)
            #expect(refused.status == 409)
            #expect(refused.json?["error"]?["status"] == .string("ABORTED"))
            #expect(try await Live.send(port, .GET, "/a.json", headers: Live.owner).body == "null")
            #expect(try await Live.send(port, .POST, "/functions/nothing", #"{"data":{}}"#, headers: Live.json).body == #"{"result":null}"#)
            #expect(try await Live.send(port, .POST, "/functions/stamp", #"{"data":{}}"#, headers: Live.json).status == 200)
            let b = try await Live.send(port, .GET, "/b.json", headers: Live.owner).json
            #expect(b?["at"] == .int(seenNow.withLock { $0 }))
            #expect(b?["now"] == b?["at"])
        }
    }

    /// Overlapping paths (one inside another) are refused as a multi-path update is, and nothing is written.
    @Test func overlappingPathsAreRefused() async throws {
        var functions = Functions()
        try functions.callable("overlap") { (_: JSONValue, _, context) -> JSONValue in
            do {
                try await context.database.atomically { _, writes in
                    writes["x"] = .object([JSONMember("y", .int(1))])
                    writes["x/y"] = .int(2)
                }
            } catch let error as CallableError {
                throw error
            } catch {
                throw CallableError(.invalidArgument, "refused: \(error)")
            }
            return .null
        }
        try await Live().withServer(functions) { port in
            let r = try await Live.send(port, .POST, "/functions/overlap", #"{"data":{}}"#, headers: Live.json)
            #expect(r.json?["error"]?["status"] == .string("INVALID_ARGUMENT"), "\(r.body)")
            #expect(try await Live.send(port, .GET, "/x.json", headers: Live.owner).body == "null")
        }
    }
}

/// The same budget, spent through three nodes sharing one PostgreSQL database: the nodes' writers serialize on
/// the namespace's row lock, so the check and the write stay one step across nodes too.
@Suite(
    "Atomic writes across nodes", .serialized,
    .enabled(if: TestCluster.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the cluster tests (.ci/run does)"))
struct ClusterAtomicWriteTests {
    @Test func threeNodesNeverOverspendABudget() async throws {
        var functions = Functions()
        try functions.callable("spend") { (_: JSONValue, _, context) -> JSONValue in
            try await context.database.atomically { data, writes in
                let spent = try data.value("stats/spent").int ?? 0
                guard spent + 10 <= 200 else { throw CallableError(.failedPrecondition, "Budget spent") }
                writes["stats/spent"] = .int(spent + 10)
                writes["stats/awards"] = .int((try data.value("stats/awards").int ?? 0) + 1)
                return .int(spent + 10)
            }
        }
        let cluster = try await TestCluster.start(nodes: 3, functions: functions)
        do {
            let ports = cluster.ports
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<90 {
                    group.addTask {
                        try await AtomicWriteTests.Live.send(ports[i % 3], .POST, "/functions/spend", #"{"data":{}}"#, headers: AtomicWriteTests.Live.json)
                            .status
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: 20, 400: 70], "\(statuses)")
            let stats = try await AtomicWriteTests.Live.send(ports[2], .GET, "/stats.json", headers: AtomicWriteTests.Live.owner).json
            #expect(stats?["spent"] == .int(200))
            #expect(stats?["awards"] == .int(20))
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}

extension JSONValue {
    fileprivate var int: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }
}
