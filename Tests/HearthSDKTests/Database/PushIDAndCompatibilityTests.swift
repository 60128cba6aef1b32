import HearthCore
import Synchronization
import Testing

@testable import Hearth

@Suite("Database: push ids and Firebase-style calls")
struct PushIDAndCompatibilityTests {
    @Test func pushIDsSortInCreationOrder() {
        let db = Database.inMemory()
        let ids = (0..<200).compactMap { _ in db.reference("q").childByAutoId().key }
        #expect(ids.count == 200)
        #expect(ids.allSatisfy { $0.utf8.count == 20 && $0.first == "-" })
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test func pushIDsUseTheServerClock() async throws {
        let connection = ScriptedConnection(serverTimeOffset: 3_600_000)
        let db = Database(options: nil, connection: connection, persistence: nil, now: { 1_000 })
        await expectEventually { db.serverTimeOffset == .seconds(3600) }
        let id = try #require(db.reference().childByAutoId().key)
        let expected = PushIDGenerator().next(millis: 3_601_000)
        #expect(id.prefix(8) == expected.prefix(8))
    }

    @Test func pushedChildrenListInPushOrder() async throws {
        let db = Database.inMemory()
        let messages = db.reference("messages")
        for i in 0..<5 { try await messages.childByAutoId().setValue(i) }
        let values = try await messages.queryOrderedByKey().getSnapshot().children.map(\.value)
        #expect(values == (0..<5).map { JSONValue.int(Int64($0)) })
    }

    @Test func observeAndRemoveObserver() async throws {
        let connection = ScriptedConnection()
        let db = Database(options: nil, connection: connection, persistence: nil)
        let ref = db.reference("x")
        let seen = Mutex<[JSONValue]>([])
        let handle = ref.observe(.value) { snapshot in seen.withLock { $0.append(snapshot.value) } }
        await expectEventually { seen.withLock { $0.count } == 1 }
        try await ref.setValue(1)
        await expectEventually { seen.withLock { $0 } == [.null, .int(1)] }
        ref.removeObserver(withHandle: handle)
        await expectEventually { connection.calls.contains(.unlisten(path: "/x", tag: nil)) }
        try await ref.setValue(2)
        #expect(seen.withLock { $0 } == [.null, .int(1)])
    }

    @Test func observeChildAddedAndSingleEvent() async throws {
        let db = Database.inMemory()
        let people = db.reference("people")
        try await people.setValue(json: json(#"{"ann":{"age":40},"bob":{"age":20}}"#))
        let single = try await people.queryOrdered(byChild: "age").observeSingleEvent(of: .value)
        #expect(single.children.map(\.key) == ["bob", "ann"])
        let added = Mutex<[String]>([])
        let handle = people.queryOrdered(byChild: "age").observe(.childAdded) { s in added.withLock { $0.append(s.key ?? "") } }
        await expectEventually { added.withLock { $0 } == ["bob", "ann"] }
        try await people.child("cid").setValue(["age": 30])
        await expectEventually("\(added.withLock { $0 })") { added.withLock { $0 } == ["bob", "ann", "cid"] }
        people.removeObserver(withHandle: handle)
        let firstAdded = try await people.observeSingleEvent(of: .childAdded)
        #expect(firstAdded.key == "ann")
    }
}
