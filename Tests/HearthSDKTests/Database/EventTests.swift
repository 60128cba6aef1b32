import HearthCore
import Testing

@testable import Hearth

@Suite("Database: value and child events")
struct EventTests {
    @Test func valueEventsFollowWrites() async throws {
        let db = Database.inMemory()
        let ref = db.reference("counter")
        let recorder = EventRecorder(ref.snapshots())
        let first = await recorder.wait(for: 1)
        #expect(first.first?.exists == false)
        try await ref.setValue(1)
        try await ref.setValue(2)
        try await ref.removeValue()
        let events = await recorder.wait(for: 4)
        #expect(events.map(\.value) == [.null, .int(1), .int(2), .null])
        recorder.stop()
    }

    @Test func identicalWritesDoNotRepeatEvents() async throws {
        let db = Database.inMemory()
        let ref = db.reference("x")
        let recorder = EventRecorder(ref.snapshots())
        await recorder.wait(for: 1)
        try await ref.setValue("same")
        try await ref.setValue("same")
        try await ref.setValue("other")
        let events = await recorder.wait(for: 3)
        #expect(events.map(\.value) == [.null, .string("same"), .string("other")])
    }

    @Test func childEventsForAPlainLocation() async throws {
        let server = InMemoryDatabaseServer(json: .object([JSONMember("a", .int(1)), JSONMember("b", .int(2))]))
        let db = Database.inMemory(server: server)
        let ref = db.reference()
        let recorder = EventRecorder(ref.childEvents())
        #expect(await recorder.wait(for: 2).map(describe) == ["added a after -", "added b after a"])
        try await ref.child("c").setValue(3)
        try await ref.child("a").setValue(10)
        try await ref.child("b").removeValue()
        let events = await recorder.wait(for: 5)
        #expect(events.dropFirst(2).map(describe) == ["added c after b", "changed a after -", "removed b after a"])
        // Stop here if events are missing: indexing past them would crash the whole test process.
        try #require(events.count == 5)
        #expect(events[3].snapshot.value == .int(10))
        #expect(events[4].snapshot.value == .int(2))
    }

    @Test func childMovedWhenOrderValueChanges() async throws {
        let server = InMemoryDatabaseServer(
            json: .object([
                JSONMember("a", .object([JSONMember("score", .int(1))])),
                JSONMember("b", .object([JSONMember("score", .int(2))])),
                JSONMember("c", .object([JSONMember("score", .int(3))])),
            ]))
        let db = Database.inMemory(server: server)
        let query = db.reference("").queryOrdered(byChild: "score")
        let recorder = EventRecorder(query.childEvents())
        #expect(await recorder.wait(for: 3).map(describe) == ["added a after -", "added b after a", "added c after b"])
        try await db.reference("a/score").setValue(5)
        let events = await recorder.wait(for: 5)
        #expect(events.dropFirst(3).map(describe) == ["moved a after c", "changed a after c"])
    }

    @Test func limitQueryWindowShifts() async throws {
        let db = Database.inMemory()
        let scores = db.reference("scores")
        try await scores.setValue(["ann": 5, "bob": 9, "cat": 7])
        let top2 = scores.queryOrderedByValue().queryLimited(toLast: 2)
        let children = EventRecorder(top2.childEvents())
        let values = EventRecorder(top2.snapshots())
        #expect(await children.wait(for: 2).map(describe) == ["added cat after -", "added bob after cat"])
        #expect(await values.wait(for: 1).first?.children.map(\.key) == ["cat", "bob"])
        try await scores.child("dan").setValue(8)
        let events = await children.wait(for: 4)
        #expect(events.dropFirst(2).map(describe) == ["removed cat after -", "added dan after -"])
        let latest = await values.wait(for: 2).last
        #expect(latest?.children.map(\.key) == ["dan", "bob"])
        #expect(latest?.value == .object([JSONMember("bob", .int(9)), JSONMember("dan", .int(8))]))
    }

    @Test func rangeQueriesSelectTheRightChildren() async throws {
        let db = Database.inMemory()
        let root = db.reference("dinos")
        try await root.setValue([
            "bruhathkayosaurus": ["height": 25.0], "lambeosaurus": ["height": 2.1], "linhenykus": ["height": 0.6],
            "pterodactyl": ["height": 0.6], "stegosaurus": ["height": 4.0], "triceratops": ["height": 3.0],
        ])
        let byHeight = root.queryOrdered(byChild: "height")
        #expect(try await byHeight.queryStarting(atValue: 3).getSnapshot().children.map(\.key) == ["triceratops", "stegosaurus", "bruhathkayosaurus"])
        #expect(try await byHeight.queryEnding(beforeValue: 2.1).getSnapshot().children.map(\.key) == ["linhenykus", "pterodactyl"])
        #expect(try await byHeight.queryEqual(toValue: 0.6).getSnapshot().children.map(\.key) == ["linhenykus", "pterodactyl"])
        #expect(
            try await byHeight.queryStarting(atValue: 0.6, childKey: "pterodactyl").queryLimited(toFirst: 2).getSnapshot().children.map(\.key)
                == ["pterodactyl", "lambeosaurus"])
        #expect(try await byHeight.queryStarting(afterValue: 4).getSnapshot().children.map(\.key) == ["bruhathkayosaurus"])
        #expect(try await root.queryOrderedByKey().queryStarting(atValue: "p").queryEnding(atValue: "t").getSnapshot().children.map(\.key) == ["pterodactyl", "stegosaurus"])
    }

    @Test func localWritesShowInQueryResults() async throws {
        let db = Database.inMemory()
        let items = db.reference("items")
        try await items.setValue(["a": 1, "b": 2, "c": 3])
        let firstTwo = items.queryOrderedByValue().queryLimited(toFirst: 2)
        let recorder = EventRecorder(firstTwo.snapshots())
        #expect(await recorder.wait(for: 1).last?.children.map(\.key) == ["a", "b"])
        try await items.child("z").setValue(0)
        #expect(await recorder.wait(for: 2).last?.children.map(\.key) == ["z", "a"])
    }

    @Test func integerLikeKeysSortNumerically() async throws {
        let db = Database.inMemory()
        let ref = db.reference("k")
        try await ref.updateChildValues(json: ["10": .int(1), "2": .int(1), "-1": .int(1), "a": .int(1), "007": .int(1)])
        let keys = try await ref.getSnapshot().children.compactMap(\.key)
        #expect(keys == ["-1", "2", "007", "10", "a"])
    }
}
