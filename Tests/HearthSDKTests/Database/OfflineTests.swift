import Foundation
import HearthCore
import Testing

@testable import Hearth

@Suite("Database: offline cache and durable write queue")
struct OfflineTests {
    static let initial = json(#"{"todos":{"t1":"milk"}}"#)

    @Test func pendingWritesSurviveARestartAndAreSentOnceInOrder() async throws {
        let dir = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }

        // First run: online long enough to cache /todos, then offline writes.
        let c1 = ScriptedConnection(json: Self.initial)
        let db1 = Database(options: nil, connection: c1, persistence: dir)
        let todos1 = db1.reference("todos")
        let r1 = EventRecorder(todos1.snapshots())
        #expect(await r1.wait(for: 1).first?.isFromCache == false)
        await db1.goOffline()
        let w1 = Task { try await todos1.child("t2").setValue("eggs") }
        await expectEventually { r1.all.count == 2 }
        let w2 = Task { try await todos1.updateChildValues(["t3": "jam"]) }
        await expectEventually { r1.all.count == 3 }
        let w3 = Task { try await todos1.child("t1").removeValue() }
        let local = await r1.wait(for: 4).last
        #expect(local?.value == json(#"{"t2":"eggs","t3":"jam"}"#))
        await db1.close()
        for w in [w1, w2, w3] {
            await #expect(throws: DatabaseError.self) { try await w.value }
        }
        #expect(c1.serverValue("todos") == json(#"{"t1":"milk"}"#))

        // The queue on disk: three writes in id order.
        let queue = try JSONValue.parse(Array(Data(contentsOf: dir.appendingPathComponent("writes.json"))))
        guard case .array(let stored)? = queue["writes"] else {
            Issue.record("no writes in the queue file")
            return
        }
        let ids = stored.compactMap { item -> Int64? in if case .int(let i)? = item["id"] { return i } else { return nil } }
        #expect(ids.count == 3)
        #expect(ids == ids.sorted())

        // Second run, starting offline: the cache and the pending writes answer reads.
        let c2 = ScriptedConnection(json: Self.initial, online: false)
        let db2 = Database(options: nil, connection: c2, persistence: dir)
        let todos2 = db2.reference("todos")
        let cached = try await todos2.getSnapshot()
        #expect(cached.isFromCache)
        #expect(cached.value == json(#"{"t2":"eggs","t3":"jam"}"#))
        let r2 = EventRecorder(todos2.snapshots())
        let firstEvent = await r2.wait(for: 1).first
        #expect(firstEvent?.isFromCache == true)
        #expect(firstEvent?.value == json(#"{"t2":"eggs","t3":"jam"}"#))
        #expect(c2.serverValue("todos") == json(#"{"t1":"milk"}"#))

        // Back online: re-sent in order, each exactly once.
        await db2.goOnline()
        await expectEventually { c2.serverValue("todos") == json(#"{"t2":"eggs","t3":"jam"}"#) }
        #expect(
            c2.writes == [
                .put(path: "/todos/t2", data: .string("eggs"), hash: nil),
                .merge(path: "/todos", data: [JSONMember("t3", .string("jam"))]),
                .put(path: "/todos/t1", data: .null, hash: nil),
            ])
        await expectEventually { (try? JSONValue.parse(Array(Data(contentsOf: dir.appendingPathComponent("writes.json")))))?["writes"] == .array([]) }
        await db2.close()

        // Third run: nothing left to send.
        let c3 = ScriptedConnection(json: json(#"{"todos":{"t2":"eggs","t3":"jam"}}"#))
        let db3 = Database(options: nil, connection: c3, persistence: dir)
        #expect(try await db3.reference("todos/t3").getValue(as: String.self) == "jam")
        try await Task.sleep(for: .milliseconds(100))
        #expect(c3.writes.isEmpty)
        await db3.close()
    }

    @Test func offlineReadWithoutCacheFails() async throws {
        let connection = ScriptedConnection(online: false)
        let db = Database(options: nil, connection: connection, persistence: nil)
        await db.goOffline()
        await #expect(throws: DatabaseError.offline("/never/seen")) {
            _ = try await db.reference("never/seen").getSnapshot()
        }
    }

    @Test func liveDataIsNotFromCacheAndOfflineDataIs() async throws {
        let connection = ScriptedConnection(json: json(#"{"a":1}"#))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let ref = db.reference("a")
        ref.keepSynced(true)
        await expectEventually { !connection.listenCalls.isEmpty }
        await expectEventually { await !db.engine.view(ViewSpec(path: Path("a"), query: nil)).fromCache }
        // Once the listen is live, reads are answered from it without asking the server.
        let gets = connection.calls.filter { $0 == .get(path: "/a") }.count
        let live = try await ref.getSnapshot()
        #expect(!live.isFromCache)
        #expect(live.value == .int(1))
        #expect(connection.calls.filter { $0 == .get(path: "/a") }.count == gets)
        await db.goOffline()
        let offline = try await ref.getSnapshot()
        #expect(offline.isFromCache)
        #expect(offline.value == .int(1))
        ref.keepSynced(false)
        await expectEventually { connection.calls.contains(.unlisten(path: "/a", tag: nil)) }
    }

    /// The listen's `ok` and the socket's end arrive together, and the `listen` call returns after `.disconnected`
    /// was handled: the view must stay "from cache" (it once went back to current, so writes made while offline were
    /// reported as confirmed server data).
    @Test func anAcknowledgementJustBeforeTheSocketDropsLeavesTheViewFromCache() async throws {
        let connection = ScriptedConnection(json: json(#"{"todos":{"t1":"milk"}}"#))
        connection.dropAfterNextListen()
        let db = Database(options: nil, connection: connection, persistence: nil)
        let todos = db.reference("todos")
        let recorder = EventRecorder(todos.snapshots())
        let first = await recorder.wait(for: 1).first
        #expect(first?.isFromCache == false)
        try await Task.sleep(for: .milliseconds(300))  // the listen call has returned by now
        let view = await db.engine.view(ViewSpec(path: Path("todos"), query: nil))
        #expect(view.fromCache)
        let write = Task { try await todos.child("t2").setValue("eggs") }
        let local = await recorder.wait(for: 2).last
        #expect(local?.value == json(#"{"t1":"milk","t2":"eggs"}"#))
        #expect(local?.isFromCache == true)
        write.cancel()
        await db.close()
    }

    /// The cache file is written at most every half second; closing writes what arrived since.
    @Test func theCacheOnDiskHasTheLatestDataAfterClose() async throws {
        let dir = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let connection = ScriptedConnection(json: json(#"{"a":1}"#))
        let db = Database(options: nil, connection: connection, persistence: dir)
        let recorder = EventRecorder(db.reference("a").snapshots())
        await recorder.wait(for: 1)
        for i in 2...50 { connection.serverWrite("a", .int(Int64(i))) }
        await expectEventually { recorder.all.last?.value == .int(50) }
        await db.close()
        let reopened = Database(options: nil, connection: ScriptedConnection(online: false), persistence: dir)
        await reopened.goOffline()  // without a cache, the read fails at once
        let cached = try await reopened.reference("a").getSnapshot()
        #expect(cached.value == .int(50))
        #expect(cached.isFromCache)
        await reopened.close()
    }

    @Test func unreadableQueueFilesAreSetAside() async throws {
        let dir = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let future = #"{"format":"hearth.database.writes","version":99,"writes":[]}"#
        try Data(future.utf8).write(to: dir.appendingPathComponent("writes.json"))
        let connection = ScriptedConnection()
        let db = Database(options: nil, connection: connection, persistence: dir)
        try await db.reference("x").setValue(1)
        let aside = try String(contentsOf: dir.appendingPathComponent("writes.json.unknown"), encoding: .utf8)
        #expect(aside == future)
        await db.close()
    }
}
