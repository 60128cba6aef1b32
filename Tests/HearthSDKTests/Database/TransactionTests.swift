import HearthCore
import Synchronization
import Testing

@testable import Hearth

@Suite("Database: transactions")
struct TransactionTests {
    static let increment: @Sendable (inout MutableData) -> TransactionResult = { data in
        let count = (try? data.value(as: Int.self)) ?? 0
        try? data.setValue(count + 1)
        return .success
    }

    @Test func transactionOnMissingData() async throws {
        let db = Database.inMemory()
        let outcome = try await db.reference("counter").runTransaction(Self.increment)
        #expect(outcome.committed)
        #expect(outcome.snapshot.value == .int(1))
        #expect(try await db.reference("counter").getValue(as: Int.self) == 1)
    }

    /// Found by the differential soak: a transaction started just before its app closed reached the engine after
    /// `close()` and waited for data forever.
    @Test func aTransactionReachingAClosedDatabaseFailsAsClosed() async throws {
        let connection = ScriptedConnection(online: false)
        let db = Database(options: nil, connection: connection, persistence: nil)
        await db.close()
        let result = Mutex<DatabaseError?>(nil)
        let transaction = Task {
            do {
                _ = try await db.reference("counter").runTransaction(Self.increment)
            } catch let error as DatabaseError {
                result.withLock { $0 = error }
            } catch {}
        }
        await expectEventually(timeout: .seconds(5)) { result.withLock { $0 } != nil }
        let code = result.withLock { $0?.code }
        #expect(code == .databaseClosed)
        // A write too: told apart from a queued write interrupted by the close (`.disconnected`).
        var writeCode: DatabaseError.Code?
        do {
            try await db.reference("counter").setValue(1)
        } catch {
            writeCode = error.code
        }
        #expect(writeCode == .databaseClosed)
        transaction.cancel()
    }

    /// The cache says 1, the server 2, and the transaction's listen answers late while other data keeps changing:
    /// the retries wait for the data at the location, so the transaction commits 3 instead of giving up after 25
    /// unrelated changes (the soak saw `maxretry` after an app restart).
    @Test func retriesWaitForTheLocationNotForAnyChange() async throws {
        let connection = ScriptedConnection(json: json(#"{"a":1,"other":0}"#))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let other = EventRecorder(db.reference("other").snapshots())
        let first = EventRecorder(db.reference("a").snapshots())
        await first.wait(for: 1)
        await other.wait(for: 1)
        first.stop()
        await expectEventually { connection.calls.contains(.unlisten(path: "/a", tag: nil)) }
        connection.serverWrite("a", .int(2))  // not pushed: nobody listens to /a now
        connection.holdNextListen()
        let transaction = Task { try await db.reference("a").runTransaction(Self.increment) }
        await expectEventually { connection.isHoldingListen }
        for i in 1...40 {
            connection.serverWrite("other", .int(Int64(i)))
            try await Task.sleep(for: .milliseconds(30))
        }
        connection.releaseHeldListen()
        let outcome = try await transaction.value
        #expect(outcome.committed)
        #expect(connection.serverValue("a") == .int(3))
        #expect(connection.puts.count <= 4, "a retry per second at most while the listen is held")
        other.stop()
        await db.close()
    }

    /// Two transactions on one location: the second runs once the first is answered, on the server's result. Run
    /// together, each retried on the other's pending value after a conflict and both gave up (soak seed 170).
    @Test func transactionsOnOneLocationRunOneAfterTheOther() async throws {
        let connection = ScriptedConnection(json: json(#"{"n":1}"#), holdWrites: true)
        let db = Database(options: nil, connection: connection, persistence: nil)
        let observer = EventRecorder(db.reference("n").snapshots())
        await observer.wait(for: 1)
        let first = Task { try await db.reference("n").runTransaction(Self.increment) }
        await expectEventually { connection.heldCount == 1 }
        let second = Task { try await db.reference("n").runTransaction(Self.increment) }
        try await Task.sleep(for: .milliseconds(50))
        let queued = await db.engine.writes.count
        #expect(queued == 1, "the second transaction waits for the first")
        connection.answerNextWrite()
        await expectEventually { connection.heldCount == 1 }
        connection.answerNextWrite()
        #expect(try await first.value.committed)
        #expect(try await second.value.committed)
        #expect(connection.serverValue("n") == .int(3))
        let hashes = connection.puts.compactMap { call -> String? in
            if case .put(_, _, let hash) = call { return hash }
            return nil
        }
        #expect(hashes == [Node.leaf(.int(1)).hash, Node.leaf(.int(2)).hash])
        observer.stop()
        await db.close()
    }

    @Test func abortLeavesDataAlone() async throws {
        let db = Database.inMemory()
        try await db.reference("name").setValue("kept")
        let outcome = try await db.reference("name").runTransaction { _ in .abort }
        #expect(!outcome.committed)
        #expect(outcome.snapshot.value == .string("kept"))
        #expect(try await db.reference("name").getValue(as: String.self) == "kept")
    }

    @Test func contendingClientsOnOneServerAllCommit() async throws {
        let server = InMemoryDatabaseServer()
        let clients = (0..<2).map { _ in Database.inMemory(server: server) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for client in clients {
                for _ in 0..<5 {
                    group.addTask { try await client.reference("counter").runTransaction(Self.increment).committed }
                }
            }
            for try await committed in group { #expect(committed) }
        }
        #expect(await server.value(at: "counter") == .int(10))
    }

    @Test func datastaleRetriesWithTheNewServerData() async throws {
        let connection = ScriptedConnection(json: .object([JSONMember("n", .int(1))]))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let attempts = AttemptCounter()
        let outcome = try await db.reference("n").runTransaction { data in
            let n = (try? data.value(as: Int.self)) ?? 0
            if attempts.next() == 1 {
                // Another client writes between our read and our commit.
                connection.serverWrite("n", .int(10))
            }
            try? data.setValue(n * 2)
            return .success
        }
        #expect(outcome.committed)
        #expect(outcome.snapshot.value == .int(20))
        #expect(attempts.count == 2)
        let puts = connection.puts
        #expect(puts.count == 2)
        // Each attempt sent the hash of the data it read.
        #expect(puts.first == .put(path: "/n", data: .int(2), hash: Node.leaf(.int(1)).hash))
        #expect(puts.last == .put(path: "/n", data: .int(20), hash: Node.leaf(.int(10)).hash))
        #expect(connection.serverValue("n") == .int(20))
    }

    @Test func gaveUpAfterTwentyFiveConflicts() async throws {
        let connection = ScriptedConnection(json: .object([JSONMember("n", .int(0))]))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let attempts = AttemptCounter()
        await #expect(throws: DatabaseError(code: .maxRetries, path: "/n", message: "")) {
            _ = try await db.reference("n").runTransaction { data in
                let i = attempts.next()
                connection.serverWrite("n", .int(Int64(1000 + i)))
                try? data.setValue(-1)
                return .success
            }
        }
        #expect(attempts.count == 25)
        #expect(connection.serverValue("n") == .int(1025))
    }
}

/// Counts calls from a `@Sendable` closure.
final class AttemptCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}
