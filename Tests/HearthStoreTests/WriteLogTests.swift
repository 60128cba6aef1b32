import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import Testing

/// The SQLite write log: recorded in the write's transaction, replayed onto a snapshot it reproduces
/// the database exactly; a gap is detected; off, it leaves no trace.
@Suite("Write log")
struct WriteLogTests {
    /// A fresh folder for one test's files.
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("writelog-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The parsed write of a JSON text.
    func value(_ text: String) throws -> ParsedWrite { try Node.parseWrite(JSONValue.parse(text)) }

    /// The writes the tests make, in order: sets, nested and multi-path updates with deletes and
    /// priorities, a push, a priority, a delete.
    func writes() throws -> [WriteRequest] {
        [
            WriteRequest(path: Path("users/ada"), operation: .set(try value(#"{"name":"Ada","age":36,"tags":{"a":true}}"#))),
            WriteRequest(path: Path("users/bob"), operation: .set(try value(#"{"name":"Bob",".priority":2}"#))),
            WriteRequest(path: Path("users"), operation: .update(
                [(Path("ada/age"), try value("37")), (Path("bob"), try value("null")), (Path("cy/name"), try value(#""Cy""#))],
                priorities: [(Path("ada"), .int(5))])),
            WriteRequest(path: Path("list"), operation: .push(try value(#"{"x":1}"#))),
            WriteRequest(path: Path("users/ada/tags/.priority"), operation: .setPriority(.string("p"), placeholder: nil)),
            WriteRequest(path: Path("users/ada/tags"), operation: .set(try value("null"))),
            WriteRequest(path: Path("n"), operation: .set(try value(#"{"deep":{"er":[1,2,3]}}"#))),
        ]
    }

    @Test func replayFromTheLogReproducesEveryLaterState() async throws {
        let dir = try folder()
        let store = try SQLiteStore(path: dir + "/live.sqlite", writeLog: true)
        let db = try await Database(name: "t", store: store, observer: RecordingObserver(), clock: { 1_000 })
        let all = try writes()
        _ = try await db.write(all[0])
        try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/base.sqlite")
        var states: [Node] = []
        for (i, request) in all.dropFirst().enumerated() {
            _ = try await db.write(request)
            states.append(try await store.snapshot { try $0.read(.root) })
            try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/source\(i).sqlite")
        }
        try await store.close()
        let base = try #require(try WriteLog.info(ofFile: dir + "/base.sqlite"))
        #expect(base.sequence == 1)
        #expect(base.hasLog && base.first == 1 && base.last == 1)
        // Replaying each later snapshot's log onto the base gives exactly the state after its last write.
        for (i, expected) in states.enumerated() {
            let target = dir + "/restored\(i).sqlite"
            try FileManager.default.copyItem(atPath: dir + "/base.sqlite", toPath: target)
            let info = try #require(try WriteLog.info(ofFile: dir + "/source\(i).sqlite", after: 1))
            #expect(WriteLog.isComplete(info, after: 1))
            let done = try WriteLog.replay(from: dir + "/source\(i).sqlite", into: target, after: 1, until: .max)
            #expect(done.changes == i + 1)
            #expect(done.sequence == UInt64(i + 2))
            let restored = try SQLiteStore(path: target)
            #expect(try await restored.snapshot { try $0.read(.root) } == expected)
            #expect(try await restored.snapshot { try $0.sequence() } == UInt64(i + 2))
            try await restored.close()
            // The restored file's own log continues the source's.
            #expect(try WriteLog.info(ofFile: target)?.last == UInt64(i + 2))
        }
    }

    @Test func replayStopsAtTheFirstChangeCommittedAfterTheLimit() async throws {
        let dir = try folder()
        let store = try SQLiteStore(path: dir + "/live.sqlite", writeLog: true)
        let db = try await Database(name: "t", store: store, observer: RecordingObserver(), clock: { 1_000 })
        try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/base.sqlite")
        _ = try await db.write(WriteRequest(path: Path("a"), operation: .set(try value("1"))))
        try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/first.sqlite")
        let firstMillis = try #require(try WriteLog.info(ofFile: dir + "/first.sqlite")?.lastMillis)
        // The next commit is at a later millisecond.
        while Int64(Date().timeIntervalSince1970 * 1000) <= firstMillis + 1 { try await Task.sleep(for: .milliseconds(2)) }
        _ = try await db.write(WriteRequest(path: Path("b"), operation: .set(try value("2"))))
        try await store.close()
        let done = try WriteLog.replay(from: dir + "/live.sqlite", into: dir + "/base.sqlite", after: 0, until: firstMillis)
        #expect(done.changes == 1)
        let restored = try SQLiteStore(path: dir + "/base.sqlite")
        #expect(try await restored.snapshot { try $0.read(.root) } == (try Node(json: JSONValue.parse(#"{"a":1}"#))))
        try await restored.close()
    }

    @Test func aPrunedLogIsNotCompleteAfterAnOlderBase() async throws {
        let dir = try folder()
        let store = try SQLiteStore(path: dir + "/live.sqlite", writeLog: true)
        let db = try await Database(name: "t", store: store, observer: RecordingObserver(), clock: { 1_000 })
        for i in 0..<5 { _ = try await db.write(WriteRequest(path: Path("k\(i)"), operation: .set(try value("\(i)")))) }
        let removed = try WriteLog.prune(file: dir + "/live.sqlite", upTo: 3, batch: 2)
        #expect(removed == 3)
        let info = try #require(try WriteLog.info(ofLiveFile: dir + "/live.sqlite", after: 1))
        #expect(info.first == 4)
        #expect(!WriteLog.isComplete(info, after: 1))
        #expect(WriteLog.isComplete(try #require(try WriteLog.info(ofLiveFile: dir + "/live.sqlite", after: 3)), after: 3))
        try await store.close()
        // Replaying over the hole is refused rather than skipping changes.
        try SQLiteSnapshot.copy(from: dir + "/live.sqlite", to: dir + "/source.sqlite")
        let empty = dir + "/empty.sqlite"
        let fresh = try SQLiteStore(path: empty)
        try await fresh.close()
        #expect(throws: WriteLog.Failure.self) {
            try WriteLog.replay(from: dir + "/source.sqlite", into: empty, after: 0, until: .max)
        }
    }

    @Test func withoutTheLogNothingIsRecorded() async throws {
        let dir = try folder()
        let store = try SQLiteStore(path: dir + "/live.sqlite")
        let db = try await Database(name: "t", store: store, observer: RecordingObserver(), clock: { 1_000 })
        _ = try await db.write(WriteRequest(path: Path("a"), operation: .set(try value("1"))))
        try await store.close()
        let info = try #require(try WriteLog.info(ofLiveFile: dir + "/live.sqlite"))
        #expect(info.sequence == 1)
        #expect(!info.hasLog)
        #expect(!WriteLog.isComplete(info, after: 0))
    }
}
