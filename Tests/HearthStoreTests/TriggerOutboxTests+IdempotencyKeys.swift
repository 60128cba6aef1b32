import HearthCore
import HearthStore
import Synchronization
import Testing

/// Idempotency keys: a keyed write commits once, together with its key.
extension TriggerOutboxTests {
    @Test(arguments: Backend.allCases)
    func repeatedKeyIsAlreadyAppliedAndWritesNothing(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#, key: "fn:evt-1")
        #expect(try await db.store.snapshot { try $0.isClaimed("fn:evt-1") })
        try await drain(db)
        await #expect(throws: AlreadyApplied(key: "fn:evt-1")) {
            try await self.put(db, "reservations/r1", #"{"n":2}"#, key: "fn:evt-1")
        }
        await #expect(throws: AlreadyApplied(key: "fn:evt-1")) {
            try await self.put(db, "reservations/r7", #"{"n":7}"#, key: "fn:evt-1")
        }
        #expect(try await db.store.getJSON("reservations") == #"{"r1":{"n":1}}"#)
        #expect(try await events(db).isEmpty)
        #expect(try await db.store.snapshot { try $0.sequence() } == 1)
        // Another key still writes.
        try await put(db, "reservations/r1", #"{"n":2}"#, key: "fn:evt-2")
        #expect(try await db.store.getJSON("reservations/r1") == #"{"n":2}"#)
    }

    @Test(arguments: Backend.allCases)
    func sameKeyTwiceInOneBatchAppliesOnce(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<10 {
                group.addTask {
                    do {
                        try await self.put(db, "counters/c\(i)", "1", key: "once")
                        return true
                    } catch is AlreadyApplied {
                        return false
                    } catch {
                        Issue.record("unexpected \(error)")
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await db.store.get("counters").childCount == 1)
    }

    @Test(arguments: Backend.allCases)
    func failedWriteLeavesTheKeyUnclaimed(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        await #expect(throws: PermissionDenied.self) {
            try await self.put(db, "reservations/r1", #"{"n":1}"#, key: "k", authorizer: DenyUnder(denied: [Path("reservations")]))
        }
        #expect(try await db.store.snapshot { try $0.isClaimed("k") } == false)
        // A stale if-match is not a commit either.
        let stale = try await db.write(
            WriteRequest(path: Path("reservations/r1"), operation: setOp(#"{"n":1}"#), ifMatch: "not-the-etag", idempotencyKey: "k"))
        guard case .preconditionFailed = stale else {
            Issue.record("expected a precondition failure, got \(stale)")
            return
        }
        #expect(try await db.store.snapshot { try $0.isClaimed("k") } == false)
        #expect(try await events(db).isEmpty)
        // Now a valid write with the key succeeds, and claims it.
        try await put(db, "reservations/r1", #"{"n":1}"#, key: "k")
        #expect(try await db.store.getJSON("reservations/r1") == #"{"n":1}"#)
        #expect(try await db.store.snapshot { try $0.isClaimed("k") })
        #expect(try await summaries(db) == ["onCreated /reservations/r1", "onWritten /reservations/r1"])
        await #expect(throws: AlreadyApplied.self) { try await self.put(db, "reservations/r1", #"{"n":9}"#, key: "k") }
    }

    @Test(arguments: Backend.allCases)
    func keyedPushAppliesOnce(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        let op = WriteRequest.Operation.push(try Node.parseWrite(JSONValue.parse(#"{"guest":"Eve"}"#)))
        _ = try await db.write(WriteRequest(path: Path("reservations"), operation: op, idempotencyKey: "push-1"))
        await #expect(throws: AlreadyApplied.self) {
            _ = try await db.write(WriteRequest(path: Path("reservations"), operation: op, idempotencyKey: "push-1"))
        }
        #expect(try await db.store.get("reservations").childCount == 1)
        #expect(try await events(db).count == 2)
    }
}
