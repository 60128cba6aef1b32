import HearthCore
import HearthStore
import Synchronization
import Testing

final class RecordingObserver: ChangeObserver {
    let changes = Mutex<[Change]>([])
    func didCommit(_ c: [Change]) { changes.withLock { $0.append(contentsOf: c) } }
}

@Suite("Database writer")
struct DatabaseWriterTests {
    func parsed(_ text: String) -> WriteRequest.Operation {
        .set(try! Node.parseWrite(JSONValue.parse(text)))
    }

    @Test(arguments: Backend.allCases)
    func concurrentWritesAllCommitInSequence(backend: Backend) async throws {
        let observer = RecordingObserver()
        let db = try await Database(name: "t", store: await backend.makeStore(), observer: observer, clock: { 1000 })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    _ = try await db.write(WriteRequest(path: Path("n/k\(i)"), operation: self.parsed("\(i)")))
                }
            }
            try await group.waitForAll()
        }
        let node = try await db.store.snapshot { try $0.read(Path("n")) }
        #expect(node.childCount == 200)
        let seqs = observer.changes.withLock { $0.map(\.sequence) }
        #expect(seqs == Array(1...200))
        #expect(try await db.store.snapshot { try $0.sequence() } == 200)
    }

    @Test(arguments: Backend.allCases)
    func pushIDsSortInCommitOrderEvenWhenTheClockGoesBack(backend: Backend) async throws {
        let observer = RecordingObserver()
        // A clock that jumps back every few calls: ids must still follow commit order.
        let ticks = Mutex<Int64>(5_000)
        let clock: @Sendable () -> Int64 = {
            ticks.withLock { t in
                t += 1
                return t % 7 == 0 ? t - 3_000 : t
            }
        }
        let db = try await Database(
            name: "t", store: await backend.makeStore(), observer: observer, clock: clock,
            pushIDs: PushIDGenerator(random: SplitMix64(seed: 3)))
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<100 {
                group.addTask {
                    let op = try WriteRequest.Operation.push(Node.parseWrite(JSONValue.parse("\(i)")))
                    let outcome = try await db.write(WriteRequest(path: Path("q"), operation: op))
                    guard case .committed(.pushed(let name), _) = outcome else { throw ValidationError("unexpected outcome \(outcome)") }
                    return name.string
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(names).count == 100)
        let committed = observer.changes.withLock { $0.map { $0.path.keys.last!.string } }
        #expect(committed.count == 100)
        #expect(committed == committed.sorted { Key($0) < Key($1) })
        #expect(Set(committed) == Set(names))
        let node = try await db.store.snapshot { try $0.read(Path("q")) }
        #expect(node.childCount == 100)
    }

    @Test(arguments: Backend.allCases)
    func serverValuesResolveInsideTheTransaction(backend: Backend) async throws {
        let db = try await Database(name: "t", store: await backend.makeStore(), observer: RecordingObserver(), clock: { 1234 })
        _ = try await db.write(WriteRequest(path: Path("c"), operation: parsed("5")))
        _ = try await db.write(WriteRequest(path: Path("c"), operation: parsed(#"{".sv":{"increment":2}}"#)))
        _ = try await db.write(WriteRequest(path: Path("t"), operation: parsed(#"{"at":{".sv":"timestamp"}}"#)))
        let root = try await db.store.snapshot { try $0.read(.root) }
        #expect(root.jsonString() == #"{"c":7,"t":{"at":1234}}"#)
    }

    @Test(arguments: Backend.allCases)
    func ifMatchGuardsTheWrite(backend: Backend) async throws {
        let db = try await Database(name: "t", store: await backend.makeStore(), observer: RecordingObserver(), clock: { 0 })
        let first = try await db.write(WriteRequest(path: Path("x"), operation: parsed("1"), ifMatch: "null_etag", wantsETag: true))
        guard case .committed(_, let etag?) = first else {
            Issue.record("expected a commit, got \(first)")
            return
        }
        #expect(etag != "null_etag")
        let stale = try await db.write(WriteRequest(path: Path("x"), operation: parsed("2"), ifMatch: "null_etag"))
        #expect(stale == .preconditionFailed(current: .leaf(.int(1)), etag: etag))
        let ok = try await db.write(WriteRequest(path: Path("x"), operation: parsed("3"), ifMatch: etag, wantsETag: true))
        guard case .committed(let echo, let newTag?) = ok else {
            Issue.record("expected a commit, got \(ok)")
            return
        }
        #expect(echo == .value(.leaf(.int(3))))
        #expect(newTag != etag)
    }

    @Test func sqliteDataSurvivesReopening() async throws {
        let folder = Backend.temporaryFolder()
        do {
            let store = try await Backend.sqlite.makeStore(folder: folder)
            try await store.put("a", #"{"b":[1,2]}"#)
            try await store.close()
        }
        let again = try await Backend.sqlite.makeStore(folder: folder)
        #expect(try await again.getJSON("a") == #"{"b":[1,2]}"#)
    }
}
