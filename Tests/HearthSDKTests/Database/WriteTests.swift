import HearthCore
import Testing

@testable import Hearth

@Suite("Database: optimistic writes, acknowledgements and rejections")
struct WriteTests {
    @Test func localEventFiresBeforeTheServerAnswers() async throws {
        let connection = ScriptedConnection(json: .object([JSONMember("title", .string("old"))]), holdWrites: true)
        let db = Database(options: nil, connection: connection, persistence: nil)
        let ref = db.reference("title")
        let recorder = EventRecorder(ref.snapshots())
        #expect(await recorder.wait(for: 1).map(\.value) == [.string("old")])

        let write = Task { try await ref.setValue("new") }
        // The local event arrives while the server still holds the write.
        let events = await recorder.wait(for: 2)
        #expect(events.map(\.value) == [.string("old"), .string("new")])
        await expectEventually { connection.heldCount == 1 }
        #expect(connection.serverValue("title") == .string("old"))

        connection.answerNextWrite()
        try await write.value
        #expect(connection.serverValue("title") == .string("new"))
        // The server's confirmation does not repeat the event.
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.all.count == 2)
    }

    @Test func rejectedWriteRevertsAndThrowsPermissionDenied() async throws {
        let connection = ScriptedConnection(json: .object([JSONMember("title", .string("old"))]), holdWrites: true)
        let db = Database(options: nil, connection: connection, persistence: nil)
        let ref = db.reference("title")
        let recorder = EventRecorder(ref.snapshots())
        await recorder.wait(for: 1)

        let write = Task { try await ref.setValue("forbidden") }
        await recorder.wait(for: 2)
        await expectEventually { connection.heldCount == 1 }
        connection.answerNextWrite(failing: "permission_denied")
        let result = await write.result
        #expect(throws: DatabaseError.permissionDenied("/title")) { try result.get() }
        let events = await recorder.wait(for: 3)
        #expect(events.map(\.value) == [.string("old"), .string("forbidden"), .string("old")])
    }

    @Test func rulesOnTheInMemoryServerRejectWrites() async throws {
        let server = InMemoryDatabaseServer()
        await server.setRule { access in access.kind == .read || !access.path.hasPrefix("/admin") }
        let db = Database.inMemory(server: server)
        try await db.reference("public/x").setValue(1)
        await #expect(throws: DatabaseError.permissionDenied("/admin/x")) {
            try await db.reference("admin/x").setValue(1)
        }
        #expect(await server.value(at: "admin") == .null)
        #expect(await server.value(at: "public/x") == .int(1))
    }

    @Test func deniedListenFailsTheStream() async throws {
        let server = InMemoryDatabaseServer()
        await server.setRule { access in !access.path.hasPrefix("/secret") }
        let db = Database.inMemory(server: server)
        let recorder = EventRecorder(db.reference("secret").snapshots())
        await recorder.waitUntilFinished()
        #expect((recorder.error as? DatabaseError)?.code == .permissionDenied)
        #expect(recorder.all.isEmpty)
        await #expect(throws: DatabaseError.permissionDenied("/secret")) {
            _ = try await db.reference("secret").getSnapshot()
        }
    }

    @Test func writesAreSentInOrderOneAtATime() async throws {
        let connection = ScriptedConnection(holdWrites: true)
        let db = Database(options: nil, connection: connection, persistence: nil)
        let a = Task { try await db.reference("a").setValue(1) }
        await expectEventually { connection.heldCount == 1 }
        let b = Task { try await db.reference("b").setValue(2) }
        await expectEventually { await db.engine.writes.count == 2 }
        let c = Task { try await db.reference("c").updateChildValues(["x": 3, "y": 4]) }
        try await Task.sleep(for: .milliseconds(100))
        // Only the first write is on the wire until it is acknowledged.
        #expect(connection.writes.count == 1)
        for _ in 0..<3 {
            await expectEventually { connection.heldCount == 1 }
            connection.answerNextWrite()
        }
        try await a.value
        try await b.value
        try await c.value
        #expect(
            connection.writes == [
                .put(path: "/a", data: .int(1), hash: nil), .put(path: "/b", data: .int(2), hash: nil),
                .merge(path: "/c", data: [JSONMember("x", .int(3)), JSONMember("y", .int(4))]),
            ])
        #expect(connection.serverValue("c") == .object([JSONMember("x", .int(3)), JSONMember("y", .int(4))]))
    }

    @Test func multiPathUpdateIsOneAtomicMerge() async throws {
        let db = Database.inMemory()
        let root = db.reference()
        try await root.setValue(json: json(#"{"keep":1,"x":{"old":true}}"#))
        let recorder = EventRecorder(root.snapshots())
        await recorder.wait(for: 1)
        try await root.updateChildValues(["x/y": 1, "z": 2, "keep": nil as Int?])
        let last = await recorder.wait(for: 2).last
        #expect(last?.value == .object([JSONMember("x", .object([JSONMember("old", .bool(true)), JSONMember("y", .int(1))])), JSONMember("z", .int(2))]))
        // One local event for the whole update.
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.all.count == 2)
    }

    @Test func oneServerListenPerLocationAndQuery() async throws {
        let connection = ScriptedConnection(json: .object([JSONMember("a", .int(1)), JSONMember("b", .int(2))]))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let root = db.reference()
        let r1 = EventRecorder(root.snapshots())
        let r2 = EventRecorder(root.childEvents())
        let r3 = EventRecorder(root.queryOrderedByValue().snapshots())
        let r4 = EventRecorder(root.queryLimited(toFirst: 1).snapshots())
        let r5 = EventRecorder(root.queryLimited(toFirst: 1).snapshots())
        await r1.wait(for: 1)
        await r2.wait(for: 2)
        await r3.wait(for: 1)
        #expect(await r4.wait(for: 1).first?.value == .object([JSONMember("a", .int(1))]))
        await r5.wait(for: 1)
        let listens = connection.listenCalls
        #expect(listens.count == 2)
        #expect(listens.contains(.listen(path: "/", query: nil, tag: nil, hash: "")))
        #expect(listens.contains { if case .listen(_, let q?, let tag?, _) = $0 { return q.limit == .first(1) && tag > 0 } else { return false } })
        r1.stop()
        r2.stop()
        r3.stop()
        await expectEventually { connection.calls.contains(.unlisten(path: "/", tag: nil)) }
    }
}
