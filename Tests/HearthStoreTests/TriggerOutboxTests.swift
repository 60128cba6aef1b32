import HearthCore
import HearthStore
import Synchronization
import Testing

/// One decoded trigger event from the outbox.
struct FiredEvent: Sendable, Equatable, CustomStringConvertible {
    var id: Int64
    var function: String
    var path: String
    var before: Node
    var after: Node
    var time: Int64
    /// How many triggers led to the event (1 for a client's write).
    var depth: Int64 = 1

    /// `function path`, for comparing lists compactly.
    var summary: String { "\(function) \(path)" }
    var description: String { "\(id) \(summary) \(before.jsonString(format: .export)) -> \(after.jsonString(format: .export))" }
}

/// Counts `onEventsQueued` calls.
final class QueuedCounter: Sendable {
    let calls = Mutex(0)
    func bump() { calls.withLock { $0 += 1 } }
    var count: Int { calls.withLock { $0 } }
}

final class NullObserver: ChangeObserver {
    func didCommit(_ changes: [Change]) {}
}

/// Denies every write touching a path under one of `denied` (security rules stand-in).
struct DenyUnder: WriteAuthorizer {
    var denied: [Path]
    func denial(for writes: [(path: Path, node: Node)], data: any StoreReader, now: Int64) -> String? {
        for w in writes {
            for d in denied where d.isAncestor(ofOrEqualTo: w.path) || w.path.isAncestor(ofOrEqualTo: d) {
                return "denied \(d)"
            }
        }
        return nil
    }

    func readDenial(at path: Path, data: any StoreReader, now: Int64) -> String? {
        denied.contains { $0.isAncestor(ofOrEqualTo: path) || path.isAncestor(ofOrEqualTo: $0) } ? "denied" : nil
    }
}

/// Runs the inner store's transaction, then fails it: nothing of the body may be kept.
final class FailingCommitStore: DatabaseStore {
    struct Injected: Error {}
    let inner: any DatabaseStore
    let failing = Mutex(false)

    init(_ inner: any DatabaseStore) { self.inner = inner }

    func snapshot<R: Sendable>(_ body: @Sendable (any StoreReader) throws -> R) async throws -> R {
        try await inner.snapshot(body)
    }

    func write<R: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> R) async throws -> R {
        let fail = failing.withLock { $0 }
        return try await inner.write { tx in
            let result = try body(tx)
            if fail { throw Injected() }
            return result
        }
    }

    func close() async throws { try await inner.close() }
}

@Suite("Database triggers enqueue outbox events")
struct TriggerOutboxTests {
    static let now: Int64 = 1_700_000_000_000

    /// created/updated/deleted/written on `pattern`, each under its own function name.
    static func triggers(_ pattern: String, prefix: String = "") -> [DatabaseTrigger] {
        let p = try! PathPattern(pattern)
        return [
            DatabaseTrigger(function: prefix + "onCreated", pattern: p, change: .created),
            DatabaseTrigger(function: prefix + "onUpdated", pattern: p, change: .updated),
            DatabaseTrigger(function: prefix + "onDeleted", pattern: p, change: .deleted),
            DatabaseTrigger(function: prefix + "onWritten", pattern: p, change: .written),
        ]
    }

    func makeDatabase(
        _ backend: Backend, store: (any DatabaseStore)? = nil, triggers: [DatabaseTrigger] = triggers("/reservations/{id}"),
        counter: QueuedCounter? = nil, clock: @escaping @Sendable () -> Int64 = { TriggerOutboxTests.now }
    ) async throws -> Database {
        var opened = store
        if opened == nil { opened = try await backend.makeStore() }
        return try await Database(
            name: "t", store: opened!, observer: NullObserver(), clock: clock,
            pushIDs: PushIDGenerator(random: SplitMix64(seed: 11)), triggers: triggers,
            onEventsQueued: { counter?.bump() })
    }

    func setOp(_ text: String) -> WriteRequest.Operation {
        .set(try! Node.parseWrite(JSONValue.parse(text)))
    }

    @discardableResult
    func put(
        _ db: Database, _ path: String, _ text: String, key: String? = nil, authorizer: (any WriteAuthorizer)? = nil
    ) async throws -> WriteOutcome {
        try await db.write(WriteRequest(path: Path(path), operation: setOp(text), authorizer: authorizer, idempotencyKey: key))
    }

    func update(_ db: Database, _ path: String, _ entries: [(String, String)]) async throws {
        let parsed = entries.map { (path: Path($0.0), value: try! Node.parseWrite(JSONValue.parse($0.1))) }
        _ = try await db.write(WriteRequest(path: Path(path), operation: .update(parsed)))
    }

    /// Every live event, oldest first, decoded.
    func events(_ db: Database) async throws -> [FiredEvent] {
        let raw = try await db.store.snapshot { try $0.dueEvents(now: .max, limit: 100_000) }
        return try raw.map { e in
            let value = try JSONValue.parse(e.payload)
            guard case .object(let members) = value, members.map(\.key) == ["path", "before", "after", "time", "depth"],
                case .string(let path)? = value["path"], case .int(let time)? = value["time"], case .int(let depth)? = value["depth"],
                let before = value["before"], let after = value["after"]
            else {
                Issue.record("unexpected payload \(String(decoding: e.payload, as: UTF8.self))")
                return FiredEvent(id: e.id, function: e.function, path: "?", before: .empty, after: .empty, time: 0)
            }
            #expect(e.dead == false && e.attempts == 0)
            return FiredEvent(
                id: e.id, function: e.function, path: path, before: try Node(json: before), after: try Node(json: after), time: time,
                depth: depth)
        }
    }

    /// Removes every event, so a test can look at what the next write enqueues.
    func drain(_ db: Database) async throws {
        try await db.store.write { tx in try tx.finishEvents(tx.dueEvents(now: .max, limit: 100_000).map(\.id)) }
    }

    func summaries(_ db: Database) async throws -> [String] { try await events(db).map(\.summary) }

    // MARK: Kinds of change

    @Test(arguments: Backend.allCases)
    func createFiresCreatedAndWritten(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann","n":2}"#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onCreated /reservations/r1", "onWritten /reservations/r1"])
        for e in fired {
            #expect(e.before == .empty)
            #expect(e.after == json(#"{"guest":"Ann","n":2}"#))
            #expect(e.time == Self.now)
        }
        #expect(fired.count == 2 && fired[0].id < fired[1].id)
        // Due at the commit time, not before.
        let early = try await db.store.snapshot { try $0.dueEvents(now: Self.now - 1, limit: 10) }
        #expect(early.isEmpty)
        #expect(try await db.store.snapshot { try $0.nextEventTime() } == Self.now)
        // The raw payload: `before` is JSON null when nothing was there.
        let raw = try await db.store.snapshot { try $0.dueEvents(now: .max, limit: 1) }
        #expect(String(decoding: raw[0].payload, as: UTF8.self) == #"{"path":"/reservations/r1","before":null,"after":{"guest":"Ann","n":2},"time":1700000000000,"depth":1}"#)
        #expect(raw[0].createdAt == Self.now && raw[0].nextAttemptAt == Self.now)
    }

    @Test(arguments: Backend.allCases)
    func changeFiresUpdatedAndWritten(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann","n":2}"#)
        try await drain(db)
        try await put(db, "reservations/r1", #"{"guest":"Ann","n":3}"#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r1", "onWritten /reservations/r1"])
        for e in fired {
            #expect(e.before == json(#"{"guest":"Ann","n":2}"#))
            #expect(e.after == json(#"{"guest":"Ann","n":3}"#))
        }
    }

    @Test(arguments: Backend.allCases)
    func deleteFiresDeletedAndWritten(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann"}"#)
        try await put(db, "reservations/r2", #"{"guest":"Bob"}"#)
        try await drain(db)
        try await put(db, "reservations/r1", "null")
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onDeleted /reservations/r1", "onWritten /reservations/r1"])
        for e in fired {
            #expect(e.before == json(#"{"guest":"Ann"}"#))
            #expect(e.after == .empty)
        }
        let raw = try await db.store.snapshot { try $0.dueEvents(now: .max, limit: 1) }
        #expect(String(decoding: raw[0].payload, as: UTF8.self).contains(#""after":null"#))
    }

    @Test(arguments: Backend.allCases)
    func deletingTheLastChildDeletesTheLocation(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann"}"#)
        try await drain(db)
        try await put(db, "reservations/r1/guest", "null")
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onDeleted /reservations/r1", "onWritten /reservations/r1"])
        #expect(fired.allSatisfy { $0.before == json(#"{"guest":"Ann"}"#) && $0.after == .empty })
    }

    @Test(arguments: Backend.allCases)
    func writesThatChangeNothingEnqueueNothing(backend: Backend) async throws {
        let counter = QueuedCounter()
        let db = try await makeDatabase(backend, counter: counter)
        try await put(db, "reservations/r1", #"{"guest":"Ann","n":2}"#)
        try await drain(db)
        let calls = counter.count
        #expect(calls == 1)
        try await put(db, "reservations/r1", #"{"n":2,"guest":"Ann"}"#)  // same value
        try await put(db, "reservations/r1/n", "2")  // same value below
        try await update(db, "reservations", [("r1/guest", #""Ann""#)])
        try await put(db, "reservations/r9", "null")  // deleting nothing
        try await put(db, "reservations/r9/x", "null")
        try await put(db, "elsewhere/r1", #"{"guest":"Ann"}"#)  // not watched
        try await put(db, "reservations", #"{"r1":{"guest":"Ann","n":2}}"#)  // same value above
        _ = try await db.write(WriteRequest(path: Path("reservations/r9"), operation: .setPriority(.int(1), placeholder: nil)))  // no node
        #expect(try await events(db).isEmpty)
        #expect(counter.count == calls)
    }

    @Test(arguments: Backend.allCases)
    func writeBelowReportsTheWholeLocation(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann","status":"new"}"#)
        try await drain(db)
        try await put(db, "reservations/r1/status", #""paid""#)
        var fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r1", "onWritten /reservations/r1"])
        #expect(fired.allSatisfy { $0.before == json(#"{"guest":"Ann","status":"new"}"#) })
        #expect(fired.allSatisfy { $0.after == json(#"{"guest":"Ann","status":"paid"}"#) })

        // Below a location that did not exist: it is created.
        try await drain(db)
        try await put(db, "reservations/r2/guests/0/name", #""Bob""#)
        fired = try await events(db)
        #expect(fired.map(\.summary) == ["onCreated /reservations/r2", "onWritten /reservations/r2"])
        #expect(fired.allSatisfy { $0.before == .empty && $0.after == json(#"{"guests":{"0":{"name":"Bob"}}}"#) })
    }

    @Test(arguments: Backend.allCases)
    func writeAboveReportsEveryChildIncludingRemovedOnes(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"guest":"Ann"}"#)
        try await drain(db)
        try await put(db, "reservations", #"{"r2":{"guest":"Bob"},"r3":{"guest":"Cy"}}"#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == [
            "onDeleted /reservations/r1", "onWritten /reservations/r1",
            "onCreated /reservations/r2", "onWritten /reservations/r2",
            "onCreated /reservations/r3", "onWritten /reservations/r3",
        ])
        let byPath = Dictionary(grouping: fired, by: \.path)
        #expect(byPath["/reservations/r1"]!.allSatisfy { $0.before == json(#"{"guest":"Ann"}"#) && $0.after == .empty })
        #expect(byPath["/reservations/r2"]!.allSatisfy { $0.before == .empty && $0.after == json(#"{"guest":"Bob"}"#) })
        #expect(byPath["/reservations/r3"]!.allSatisfy { $0.before == .empty && $0.after == json(#"{"guest":"Cy"}"#) })
    }

    @Test(arguments: Backend.allCases)
    func writeAboveKeepsUnchangedChildrenQuiet(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations", #"{"r1":{"guest":"Ann"},"r2":{"guest":"Bob"}}"#)
        try await drain(db)
        try await put(db, "reservations", #"{"r1":{"guest":"Ann"},"r2":{"guest":"Bo"}}"#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r2", "onWritten /reservations/r2"])
        #expect(fired.allSatisfy { $0.before == json(#"{"guest":"Bob"}"#) && $0.after == json(#"{"guest":"Bo"}"#) })
    }

    @Test(arguments: Backend.allCases)
    func writeAboveReplacingObjectWithALeaf(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations", #"{"r1":1,"r2":2}"#)
        try await drain(db)
        try await put(db, "reservations", #""closed""#)
        #expect(try await summaries(db) == [
            "onDeleted /reservations/r1", "onWritten /reservations/r1", "onDeleted /reservations/r2", "onWritten /reservations/r2",
        ])
    }

    @Test(arguments: Backend.allCases)
    func putAtTheRoot(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "/", #"{"reservations":{"r1":{"n":1},"r2":{"n":2}},"other":{"r9":{"n":9}}}"#)
        #expect(try await summaries(db) == [
            "onCreated /reservations/r1", "onWritten /reservations/r1", "onCreated /reservations/r2", "onWritten /reservations/r2",
        ])
        try await drain(db)
        try await put(db, "/", #"{"reservations":{"r1":{"n":10},"r4":{"n":4}},"other":1}"#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == [
            "onUpdated /reservations/r1", "onWritten /reservations/r1",
            "onDeleted /reservations/r2", "onWritten /reservations/r2",
            "onCreated /reservations/r4", "onWritten /reservations/r4",
        ])
        #expect(fired[0].before == json(#"{"n":1}"#) && fired[0].after == json(#"{"n":10}"#))
        #expect(fired[2].before == json(#"{"n":2}"#) && fired[2].after == .empty)
        #expect(fired[4].before == .empty && fired[4].after == json(#"{"n":4}"#))
        try await drain(db)
        try await put(db, "/", "null")
        #expect(try await summaries(db) == [
            "onDeleted /reservations/r1", "onWritten /reservations/r1", "onDeleted /reservations/r4", "onWritten /reservations/r4",
        ])
    }

    @Test(arguments: Backend.allCases)
    func multiPathUpdateTouchingTwoReservations(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"status":"new","guest":"Ann"}"#)
        try await put(db, "reservations/r3", #"{"guest":"Cy"}"#)
        try await drain(db)
        try await update(db, "/", [
            ("reservations/r1/status", #""paid""#), ("reservations/r2", #"{"guest":"Bob"}"#), ("other/x", "1"),
            ("reservations/r3", "null"),
        ])
        let fired = try await events(db)
        #expect(fired.map(\.summary) == [
            "onUpdated /reservations/r1", "onWritten /reservations/r1",
            "onCreated /reservations/r2", "onWritten /reservations/r2",
            "onDeleted /reservations/r3", "onWritten /reservations/r3",
        ])
        #expect(fired[0].before == json(#"{"status":"new","guest":"Ann"}"#))
        #expect(fired[0].after == json(#"{"status":"paid","guest":"Ann"}"#))
        #expect(fired[2].after == json(#"{"guest":"Bob"}"#))
        #expect(fired[4].before == json(#"{"guest":"Cy"}"#) && fired[4].after == .empty)
    }

    @Test(arguments: Backend.allCases)
    func multiPathUpdateAboveThePattern(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        try await drain(db)
        // An entry above the pattern depth replaces the whole `reservations` subtree.
        try await update(db, "/", [("reservations", #"{"r2":{"n":2}}"#), ("other", "1")])
        #expect(try await summaries(db) == [
            "onDeleted /reservations/r1", "onWritten /reservations/r1", "onCreated /reservations/r2", "onWritten /reservations/r2",
        ])
    }

    @Test(arguments: Backend.allCases)
    func pushCreatesAnEventNamedByThePushID(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        try await drain(db)
        let outcome = try await db.write(
            WriteRequest(path: Path("reservations"), operation: .push(try Node.parseWrite(JSONValue.parse(#"{"guest":"Dee"}"#)))))
        guard case .committed(.pushed(let key), _) = outcome else {
            Issue.record("unexpected outcome \(outcome)")
            return
        }
        let name = key.string
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onCreated /reservations/\(name)", "onWritten /reservations/\(name)"])
        #expect(fired.allSatisfy { $0.before == .empty && $0.after == json(#"{"guest":"Dee"}"#) })
    }

    @Test(arguments: Backend.allCases)
    func pushBelowALocationUpdatesIt(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        try await drain(db)
        let outcome = try await db.write(
            WriteRequest(path: Path("reservations/r1/notes"), operation: .push(try Node.parseWrite(JSONValue.parse(#""hi""#)))))
        guard case .committed(.pushed(let key), _) = outcome else {
            Issue.record("unexpected outcome \(outcome)")
            return
        }
        let name = key.string
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r1", "onWritten /reservations/r1"])
        #expect(fired.allSatisfy { $0.before == json(#"{"n":1}"#) })
        #expect(fired.allSatisfy { $0.after == json(#"{"n":1,"notes":{"\#(name)":"hi"}}"#) })
    }

    @Test(arguments: Backend.allCases)
    func priorityChangeIsAnUpdate(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        try await drain(db)
        _ = try await db.write(WriteRequest(path: Path("reservations/r1"), operation: .setPriority(.int(5), placeholder: nil)))
        var fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r1", "onWritten /reservations/r1"])
        #expect(fired.allSatisfy { $0.before == json(#"{"n":1}"#) && $0.after == json(#"{"n":1,".priority":5}"#) })
        #expect(fired.first?.after.priority == .int(5))
        #expect(fired.first?.before.priority == nil)

        // The same priority again changes nothing.
        try await drain(db)
        _ = try await db.write(WriteRequest(path: Path("reservations/r1"), operation: .setPriority(.int(5), placeholder: nil)))
        #expect(try await events(db).isEmpty)

        // A priority in a multi-path update.
        _ = try await db.write(
            WriteRequest(path: Path("reservations"), operation: .update([], priorities: [(path: Path("r1"), priority: .string("b"))])))
        fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /reservations/r1", "onWritten /reservations/r1"])
        #expect(fired.allSatisfy { $0.before.priority == .int(5) && $0.after.priority == .string("b") })

        // A priority on a leaf below the location travels in export format.
        try await drain(db)
        _ = try await db.write(WriteRequest(path: Path("reservations/r1/n"), operation: .setPriority(.int(1), placeholder: nil)))
        let raw = try await db.store.snapshot { try $0.dueEvents(now: .max, limit: 1) }
        #expect(String(decoding: raw[0].payload, as: UTF8.self).contains(#""after":{".priority":"b","n":{".priority":1,".value":1}}"#))
    }

    // MARK: Failed requests

    @Test(arguments: Backend.allCases)
    func refusedRequestsInABatchEnqueueNothing(backend: Backend) async throws {
        let counter = QueuedCounter()
        let db = try await makeDatabase(backend, counter: counter)
        let deny = DenyUnder(denied: [Path("reservations/bad")])
        // Many concurrent writes, so that refused and allowed ones share commits.
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<40 {
                group.addTask {
                    let path = i % 2 == 0 ? "reservations/ok\(i)" : "reservations/bad/x\(i)"
                    do {
                        try await self.put(db, path, #"{"i":\#(i)}"#, authorizer: deny)
                        return (i, true)
                    } catch is PermissionDenied {
                        return (i, false)
                    } catch {
                        Issue.record("unexpected \(error)")
                        return (i, false)
                    }
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 40)
        for (i, ok) in results { #expect(ok == (i % 2 == 0), "write \(i)") }
        let fired = try await events(db)
        #expect(fired.count == 40)  // 20 creations × (created + written)
        #expect(!fired.contains { $0.path.contains("bad") })
        #expect(Set(fired.map(\.path)) == Set((0..<20).map { "/reservations/ok\($0 * 2)" }))
        #expect(try await db.store.get("reservations/bad") == .empty)
        #expect(counter.count >= 1 && counter.count <= 20)
    }

    @Test(arguments: Backend.allCases)
    func deniedWriteAboveThePatternEnqueuesNothing(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        try await drain(db)
        await #expect(throws: PermissionDenied.self) {
            try await self.put(db, "reservations", #"{"r2":{"n":2}}"#, authorizer: DenyUnder(denied: [Path("reservations/r2")]))
        }
        await #expect(throws: PermissionDenied.self) {
            _ = try await db.write(
                WriteRequest(
                    path: .root, operation: .update([(path: Path("reservations/r1"), value: try Node.parseWrite(.null))]),
                    authorizer: DenyUnder(denied: [Path("reservations/r1")])))
        }
        #expect(try await events(db).isEmpty)
        #expect(try await db.store.getJSON("reservations") == #"{"r1":{"n":1}}"#)
    }

    @Test(arguments: Backend.allCases)
    func eventsCommitWithTheChangeOrNotAtAll(backend: Backend) async throws {
        let counter = QueuedCounter()
        let store = FailingCommitStore(try await backend.makeStore())
        let db = try await makeDatabase(backend, store: store, counter: counter)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        #expect(counter.count == 1)
        store.failing.withLock { $0 = true }
        await #expect(throws: FailingCommitStore.Injected.self) {
            try await self.put(db, "reservations/r2", #"{"n":2}"#)
        }
        await #expect(throws: FailingCommitStore.Injected.self) {
            try await self.put(db, "reservations/r1", "null")
        }
        #expect(counter.count == 1)  // nothing was queued by the failed commits
        store.failing.withLock { $0 = false }
        #expect(try await db.store.getJSON("reservations") == #"{"r1":{"n":1}}"#)
        #expect(try await summaries(db) == ["onCreated /reservations/r1", "onWritten /reservations/r1"])
        // The writer still works and sees the right "before".
        try await put(db, "reservations/r1", #"{"n":3}"#)
        let last = try await events(db).last
        #expect(last?.before == json(#"{"n":1}"#) && last?.after == json(#"{"n":3}"#))
    }

    // MARK: Concurrency

    @Test(arguments: Backend.allCases)
    func concurrentWritesEnqueueOneEventPerChangeInCommitOrder(backend: Backend) async throws {
        let counter = QueuedCounter()
        let db = try await makeDatabase(backend, counter: counter)
        let n = 60
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 1...n {
                group.addTask {
                    try await self.put(db, "reservations/r1/v", "\(i)")
                    try await self.put(db, "reservations/k\(i)", #"{"i":\#(i)}"#)
                }
            }
            try await group.waitForAll()
        }
        let fired = try await events(db)
        #expect(fired.map(\.id) == fired.map(\.id).sorted())
        #expect(Set(fired.map(\.id)).count == fired.count)
        // r1: one creation, then n-1 updates (every value differs from the one before).
        let r1 = fired.filter { $0.path == "/reservations/r1" }
        #expect(r1.filter { $0.function == "onCreated" }.count == 1)
        #expect(r1.filter { $0.function == "onUpdated" }.count == n - 1)
        #expect(r1.filter { $0.function == "onDeleted" }.isEmpty)
        let written = r1.filter { $0.function == "onWritten" }
        #expect(written.count == n)
        // Each event's "before" is the previous one's "after": changes are seen in commit order.
        #expect(written.first?.before == .empty)
        for (a, b) in zip(written, written.dropFirst()) { #expect(b.before == a.after) }
        let stored = try await db.store.get("reservations/r1")
        #expect(written.last?.after == stored)
        // The k-locations: one creation each.
        let created = fired.filter { $0.function == "onCreated" && $0.path != "/reservations/r1" }
        #expect(Set(created.map(\.path)) == Set((1...n).map { "/reservations/k\($0)" }))
        #expect(fired.count == 2 * n + 2 * n)
        #expect(counter.count >= 1 && counter.count <= 2 * n)
    }

    // MARK: Patterns

    @Test(arguments: Backend.allCases)
    func nestedPattern(backend: Backend) async throws {
        let db = try await makeDatabase(backend, triggers: Self.triggers("/chats/{chat}/messages/{msg}"))
        try await put(db, "chats/c1", #"{"title":"A","messages":{"m1":{"t":"hi"},"m2":{"t":"yo"}}}"#)
        #expect(try await summaries(db) == [
            "onCreated /chats/c1/messages/m1", "onWritten /chats/c1/messages/m1",
            "onCreated /chats/c1/messages/m2", "onWritten /chats/c1/messages/m2",
        ])
        try await drain(db)
        try await put(db, "chats/c1/title", #""B""#)
        try await put(db, "chats/c1/members/m1", "true")
        #expect(try await events(db).isEmpty)
        try await put(db, "chats/c1/messages/m1/t", #""hello""#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == ["onUpdated /chats/c1/messages/m1", "onWritten /chats/c1/messages/m1"])
        #expect(fired.allSatisfy { $0.before == json(#"{"t":"hi"}"#) && $0.after == json(#"{"t":"hello"}"#) })
        try await drain(db)
        try await put(db, "chats", #"{"c2":{"messages":{"m1":"new"}}}"#)
        #expect(try await summaries(db) == [
            "onDeleted /chats/c1/messages/m1", "onWritten /chats/c1/messages/m1",
            "onDeleted /chats/c1/messages/m2", "onWritten /chats/c1/messages/m2",
            "onCreated /chats/c2/messages/m1", "onWritten /chats/c2/messages/m1",
        ])
    }

    @Test(arguments: Backend.allCases)
    func pushAboveANestedPattern(backend: Backend) async throws {
        let db = try await makeDatabase(backend, triggers: Self.triggers("/chats/{chat}/messages/{msg}"))
        let outcome = try await db.write(
            WriteRequest(path: Path("chats"), operation: .push(try Node.parseWrite(JSONValue.parse(#"{"messages":{"m1":"a"}}"#)))))
        guard case .committed(.pushed(let key), _) = outcome else {
            Issue.record("unexpected outcome \(outcome)")
            return
        }
        let name = key.string
        #expect(try await summaries(db) == ["onCreated /chats/\(name)/messages/m1", "onWritten /chats/\(name)/messages/m1"])
    }

    @Test(arguments: Backend.allCases)
    func severalPatternsFireIndependently(backend: Backend) async throws {
        let triggers = Self.triggers("/reservations/{id}") + [
            DatabaseTrigger(function: "statusWritten", pattern: try PathPattern("/reservations/{id}/status"), change: .written),
            DatabaseTrigger(function: "everything", pattern: try PathPattern("/"), change: .written),
        ]
        let db = try await makeDatabase(backend, triggers: triggers)
        try await put(db, "reservations/r1/status", #""new""#)
        let fired = try await events(db)
        #expect(fired.map(\.summary) == [
            "onCreated /reservations/r1", "onWritten /reservations/r1", "statusWritten /reservations/r1/status", "everything /",
        ])
        #expect(fired[2].before == .empty && fired[2].after == json(#""new""#))
        #expect(fired[3].after == json(#"{"reservations":{"r1":{"status":"new"}}}"#))
        try await drain(db)
        try await put(db, "reservations/r1/note", #""x""#)
        #expect(try await summaries(db) == ["onUpdated /reservations/r1", "onWritten /reservations/r1", "everything /"])
    }

    @Test(arguments: Backend.allCases)
    func noTriggersNoEvents(backend: Backend) async throws {
        let counter = QueuedCounter()
        let db = try await makeDatabase(backend, triggers: [], counter: counter)
        try await put(db, "reservations/r1", #"{"n":1}"#)
        #expect(try await events(db).isEmpty)
        #expect(counter.count == 0)
    }
}
