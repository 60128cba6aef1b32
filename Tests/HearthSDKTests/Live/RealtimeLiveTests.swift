import Foundation
import Hearth
import HearthCore
import HearthSQLite
import HearthTesting
import Synchronization
import Testing

/// The whole SDK (`HearthApp`: auth, realtime connection, database) against a real server.
@Suite("SDK against a live server")
struct RealtimeLiveTests {
    struct Message: Codable, Equatable { var text: String; var by: String }

    @Test("one client's write reaches another client's observer")
    func twoClients() async throws {
        try await withAuthStorageServer { live in
            let alice = HearthApp(name: "alice", options: live.options())
            let bob = HearthApp(name: "bob", options: live.options())
            defer { Task { await alice.close(); await bob.close() } }
            let aliceUser = try await alice.auth.signInAnonymously()
            _ = try await bob.auth.signInAnonymously()
            let room = bob.database.reference("rooms/r1/messages")
            let received = Task { () throws -> Message? in
                for try await event in room.childEvents() {
                    if case .added(let snapshot, _) = event { return try snapshot.value(as: Message.self) }
                }
                return nil as Message?
            }
            // Bob's listen is registered before Alice writes: wait for the first (empty) value.
            _ = try await withTimeout(10) { try await room.getSnapshot() }
            try await alice.database.reference("rooms/r1/messages").childByAutoId().setValue(Message(text: "hi", by: aliceUser.uid))
            let message = try await withTimeout(10) { try await received.value }
            #expect(message == .some(Message(text: "hi", by: aliceUser.uid)))
        }
    }

    @Test("the connection authenticates with the signed-in user's ID token; rules see auth.uid")
    func rulesSeeTheUser() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{"users":{"$uid":{".read":"auth.uid === $uid",".write":"auth.uid === $uid"}}}}"#)
            let app = HearthApp(name: "rules", options: live.options())
            defer { Task { await app.close() } }
            let user = try await app.auth.signUp(email: "ada@example.com", password: "correct horse battery")
            try await app.database.reference("users/\(user.uid)/name").setValue("Ada")
            #expect(try await rest.get("users/\(user.uid)/name") == .string("Ada"))
            await #expect(throws: DatabaseError.self) {
                try await app.database.reference("users/someone-else/name").setValue("Mallory")
            }
            #expect(try await rest.get("users/someone-else") == .null)
        }
    }

    @Test("transactions from two clients on one counter both count")
    func transactionsUnderContention() async throws {
        try await withAuthStorageServer { live in
            let apps = [HearthApp(name: "t1", options: live.options()), HearthApp(name: "t2", options: live.options())]
            defer { Task { for app in apps { await app.close() } } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for app in apps {
                    for _ in 0..<5 {
                        group.addTask {
                            let outcome = try await app.database.reference("counter").runTransaction { data in
                                let current = (try? data.value(as: Int.self)) ?? 0
                                try? data.setValue(current + 1)
                                return .success
                            }
                            #expect(outcome.committed)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await AdminREST(port: live.port).get("counter") == .int(10))
        }
    }

    @Test("onDisconnect writes run when the client goes away")
    func onDisconnect() async throws {
        try await withAuthStorageServer { live in
            let app = HearthApp(name: "presence", options: live.options())
            let presence = app.database.reference("presence/me")
            try await presence.setValue(true)
            try await presence.onDisconnect().setValue(false)
            #expect(try await AdminREST(port: live.port).get("presence/me") == .bool(true))
            await app.close()
            #expect(try await eventually { try await AdminREST(port: live.port).get("presence/me") == .bool(false) })
        }
    }

    @Test("a limited query observes only its window and follows changes")
    func queryWindow() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{".read":true,".write":true,"scores":{".indexOn":"v"}}}"#)
            try await rest.put("scores", #"{"a":{"v":1},"b":{"v":5},"c":{"v":3}}"#)
            let app = HearthApp(name: "query", options: live.options())
            defer { Task { await app.close() } }
            let top = app.database.reference("scores").queryOrdered(byChild: "v").queryLimited(toLast: 2)
            let keys = Task {
                var seen: [[String]] = []
                for try await snapshot in top.snapshots() {
                    seen.append(snapshot.children.compactMap(\.key))
                    if seen.last == ["b", "d"] { break }
                }
                return seen
            }
            await expectEventually { (try? await top.getSnapshot())?.children.compactMap(\.key) == ["c", "b"] }
            try await rest.put("scores/d", #"{"v":9}"#)
            let windows = try await withTimeout(10) { try await keys.value }
            #expect(windows.first == ["c", "b"])
            #expect(windows.last == ["b", "d"])
        }
    }

    @Test("writes made offline survive an app restart and reach the server once, in order")
    func offlineQueueAcrossRestart() async throws {
        let dataFolder = temporaryFolder()
        let appFolder = temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: dataFolder)
            try? FileManager.default.removeItem(at: appFolder)
        }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: dataFolder.path))
        let port = try await server.start()
        let rest = AdminREST(port: port)
        do {
            let app = HearthApp(name: "offline", options: appOptions(port: port, persistence: appFolder))
            try await app.database.reference("log").updateChildValues(["0": "zero", "count": ServerValue.increment(1), "last": 0])
            #expect(try await rest.get("log/count") == .int(1))
            // The server goes away; the app keeps writing.
            await server.stop()
            var pending: [Task<Void, any Error>] = []
            for k in 1...3 {
                let write = Task {
                    try await app.database.reference("log").updateChildValues(["\(k)": "entry \(k)", "count": ServerValue.increment(1), "last": k])
                }
                pending.append(write)
                try await Task.sleep(for: .milliseconds(50))
            }
            // Local reads see the queued writes at once.
            let local = try await app.database.reference("log/last").getSnapshot()
            #expect(local.value == .int(3))
            await app.close()
            for write in pending { _ = await write.result }
        }
        // A new launch of the app, then the server comes back on the same port.
        let relaunched = HearthApp(name: "offline", options: appOptions(port: port, persistence: appFolder))
        defer { Task { await relaunched.close() } }
        _ = try await server.start(port: port)
        #expect(try await eventually(timeout: .seconds(30)) { try await rest.get("log/count") == .int(4) })
        // Once each (count moved by exactly 3), in order (the last write won).
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await rest.get("log/count") == .int(4))
        #expect(try await rest.get("log/last") == .int(3))
        #expect(try await rest.get("log/2") == .string("entry 2"))
        // The relaunched app's view agrees with the server.
        #expect(try await eventually {
            let snapshot = try await relaunched.database.reference("log/count").getSnapshot()
            return snapshot.value == .int(4) && !snapshot.isFromCache
        })
        await server.stop()
    }
}

@Suite("SDK connection state against a live server")
struct ConnectionStateLiveTests {
    @Test("connectionStates reports the server going away and coming back")
    func connectionStates() async throws {
        let dataFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dataFolder) }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: dataFolder.path))
        let port = try await server.start()
        let app = HearthApp(name: "state", options: appOptions(port: port))
        let states = await app.database.connectionStates()
        let seen = Task { () -> [Bool] in
            var all: [Bool] = []
            for await state in states {
                if all.last != state { all.append(state) }
                if all.suffix(3) == [true, false, true] { break }
            }
            return all
        }
        try await app.database.reference("x").setValue(1)   // connected by now
        await server.stop()
        try await Task.sleep(for: .milliseconds(300))
        _ = try await server.start(port: port)
        let transitions = try await withTimeout(30) { await seen.value }
        #expect(transitions.suffix(3) == [true, false, true])
        await app.close()
        await server.stop()
    }
}

@Suite("SDK features against a live server")
struct FeatureLiveTests {
    @Test("values far larger than one frame travel both ways over the real socket")
    func largeValues() async throws {
        try await withAuthStorageServer { live in
            let writer = HearthApp(name: "big-w", options: live.options())
            let reader = HearthApp(name: "big-r", options: live.options())
            defer { Task { await writer.close(); await reader.close() } }
            let text = String(repeating: "Grüße 🐵 ", count: 20_000)   // ~240,000 UTF-8 bytes, 180,000 characters
            let first = Task { () throws -> String? in
                for try await snapshot in reader.database.reference("big").snapshots() where snapshot.exists {
                    return try snapshot.value(as: String.self)
                }
                return nil
            }
            try await writer.database.reference("big").setValue(text)
            #expect(try await withTimeout(15) { try await first.value } == .some(text))
            #expect(try await AdminREST(port: live.port).get("big") == .string(text))
        }
    }

    @Test("child events over the socket: added, changed, moved and removed with previous keys")
    func childEventsLive() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{".read":true,".write":true,"gifts":{".indexOn":"votes"}}}"#)
            try await rest.put("gifts", #"{"bike":{"votes":1},"book":{"votes":2}}"#)
            let app = HearthApp(name: "events", options: live.options())
            defer { Task { await app.close() } }
            let ranking = app.database.reference("gifts").queryOrdered(byChild: "votes")
            let events = Task { () throws -> [String] in
                var seen: [String] = []
                for try await event in ranking.childEvents() {
                    let key = event.snapshot.key ?? "?"
                    switch event {
                    case .added(_, let previous): seen.append("added \(key) after \(previous ?? "-")")
                    case .changed: seen.append("changed \(key)")
                    case .moved(_, let previous): seen.append("moved \(key) after \(previous ?? "-")")
                    case .removed: seen.append("removed \(key)")
                    }
                    if seen.contains("removed book") { return seen }
                }
                return seen
            }
            await expectEventually { (try? await ranking.getSnapshot())?.childrenCount == 2 }
            try await app.database.reference("gifts/bike/votes").setValue(5)
            try await rest.put("gifts/book", "null")
            let seen = try await withTimeout(15) { try await events.value }
            #expect(seen.prefix(2) == ["added bike after -", "added book after bike"])
            #expect(seen.contains("changed bike"))
            #expect(seen.contains("moved bike after book"))
            #expect(seen.last == "removed book")
        }
    }

    @Test("the Firebase-style observe shim delivers live values until removed")
    func observeShim() async throws {
        try await withAuthStorageServer { live in
            let app = HearthApp(name: "shim", options: live.options())
            defer { Task { await app.close() } }
            let ref = app.database.reference("shim")
            let values = Mutex<[JSONValue]>([])
            let handle = ref.observe(.value) { snapshot in values.withLock { $0.append(snapshot.value) } }
            await expectEventually { values.withLock { $0 } == [.null] }
            try await AdminREST(port: live.port).put("shim", "7")
            await expectEventually { values.withLock { $0.last } == .int(7) }
            ref.removeObserver(withHandle: handle)
            let count = values.withLock { $0.count }
            try await AdminREST(port: live.port).put("shim", "8")
            try await Task.sleep(for: .milliseconds(300))
            #expect(values.withLock { $0.count } == count)
            let once = try await ref.observeSingleEvent(of: .value)
            #expect(once.value == .int(8))
        }
    }
}
