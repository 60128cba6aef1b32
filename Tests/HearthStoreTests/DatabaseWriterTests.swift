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
        let db = try await Database(name: "t", store: backend.makeStore(), observer: observer, clock: { 1000 })
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
    func serverValuesResolveInsideTheTransaction(backend: Backend) async throws {
        let db = try await Database(name: "t", store: backend.makeStore(), observer: RecordingObserver(), clock: { 1234 })
        _ = try await db.write(WriteRequest(path: Path("c"), operation: parsed("5")))
        _ = try await db.write(WriteRequest(path: Path("c"), operation: parsed(#"{".sv":{"increment":2}}"#)))
        _ = try await db.write(WriteRequest(path: Path("t"), operation: parsed(#"{"at":{".sv":"timestamp"}}"#)))
        let root = try await db.store.snapshot { try $0.read(.root) }
        #expect(root.jsonString() == #"{"c":7,"t":{"at":1234}}"#)
    }

    @Test(arguments: Backend.allCases)
    func ifMatchGuardsTheWrite(backend: Backend) async throws {
        let db = try await Database(name: "t", store: backend.makeStore(), observer: RecordingObserver(), clock: { 0 })
        let first = try await db.write(WriteRequest(path: Path("x"), operation: parsed("1"), ifMatch: "null_etag", wantsETag: true))
        guard case .committed(_, let etag?) = first else {
            Issue.record("expected a commit, got \(first)")
            return
        }
        #expect(etag != "null_etag")
        let stale = try await db.write(WriteRequest(path: Path("x"), operation: parsed("2"), ifMatch: "null_etag"))
        #expect(stale == .preconditionFailed(current: .leaf(.int(1)), etag: etag))
        let ok = try await db.write(WriteRequest(path: Path("x"), operation: parsed("3"), ifMatch: etag, wantsETag: true))
        guard case .committed(let body, let newTag?) = ok else {
            Issue.record("expected a commit, got \(ok)")
            return
        }
        #expect(body == Array("3".utf8))
        #expect(newTag != etag)
    }

    @Test func sqliteDataSurvivesReopening() async throws {
        let folder = Backend.temporaryFolder()
        do {
            let store = try Backend.sqlite.makeStore(folder: folder)
            try await store.put("a", #"{"b":[1,2]}"#)
            try await store.close()
        }
        let again = try Backend.sqlite.makeStore(folder: folder)
        #expect(try await again.getJSON("a") == #"{"b":[1,2]}"#)
    }
}
