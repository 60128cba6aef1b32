import HearthCore
import Testing

@testable import Hearth

/// When a write's local copy leaves the view, and what an answer may overwrite. Each case was found by the
/// differential soak (`DifferentialSoakTests`) as a value that went back to an older one for a moment.
@Suite("Write acknowledgements and server answers")
struct WriteAcknowledgementTests {
    /// The values an observer saw, `~` marking those from the cache.
    private func history(_ snapshots: [DataSnapshot]) -> [String] {
        snapshots.map { ($0.isFromCache ? "~" : "") + $0.value.jsonString }
    }

    /// An observer re-made after its listen ended shows the cached (older) value until its new listen answers. A write
    /// acknowledged in between must stay on top of that cache: dropping it at once showed the old value again.
    @Test func anAcknowledgedWriteStaysUntilTheNewListenHasTheServerData() async throws {
        let connection = ScriptedConnection(json: json(#"{"own":{"c1":5}}"#), holdWrites: true)
        let db = Database(options: nil, connection: connection, persistence: nil)
        let own = db.reference("own")
        let first = EventRecorder(own.snapshots())
        #expect(await first.wait(for: 1).last?.value == json(#"{"c1":5}"#))
        first.stop()
        await expectEventually { connection.calls.contains(.unlisten(path: "/own", tag: nil)) }
        connection.serverWrite("own/c1", .int(6))  // nobody listens: the client's cache keeps 5
        connection.holdNextListen()
        let second = EventRecorder(own.snapshots())
        await second.wait(for: 1)
        await expectEventually { connection.isHoldingListen }
        let write = Task { try await own.child("c1").setValue(7) }
        await second.wait(for: 2)
        await expectEventually { connection.heldCount == 1 }
        connection.answerNextWrite()
        try await write.value
        try await Task.sleep(for: .milliseconds(50))
        #expect(history(second.all) == [#"~{"c1":5}"#, #"~{"c1":7}"#], "the acknowledged write stays over the old cache")
        connection.releaseHeldListen()
        await expectEventually { second.all.last?.isFromCache == false }
        #expect(history(second.all) == [#"~{"c1":5}"#, #"~{"c1":7}"#, #"{"c1":7}"#])
        #expect(await db.engine.writes.isEmpty)
        await db.close()
    }

    /// A write that stays (it also touches a listen not answered yet) is applied under the later writes to the same
    /// place; those must stay with it, or its older value covers theirs.
    @Test func aWriteThatStaysKeepsTheLaterWritesItOverlaps() async throws {
        let connection = ScriptedConnection(json: json(#"{"own":{"c1":1},"items":{"k":0}}"#))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let own = EventRecorder(db.reference("own").snapshots())
        await own.wait(for: 1)
        connection.holdNextListen()
        let items = EventRecorder(db.reference("items").snapshots())
        await expectEventually { connection.isHoldingListen }
        try await db.reference().updateChildValues(json: ["own/c1": .int(9), "items/k": .int(1)])
        try await db.reference("own/c1").setValue(10)
        await expectEventually { own.all.last?.value == json(#"{"c1":10}"#) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(history(own.all) == [#"{"c1":1}"#, #"{"c1":9}"#, #"{"c1":10}"#])
        connection.releaseHeldListen()
        #expect(await items.wait(for: 1).last?.value == json(#"{"k":1}"#))
        await expectEventually { await db.engine.writes.isEmpty }
        #expect(history(own.all) == [#"{"c1":1}"#, #"{"c1":9}"#, #"{"c1":10}"#])
        await db.close()
    }

    /// A one-off read's answer reaches the engine on another task than the pushes: when a push newer than the answer
    /// was handled first, the answer must not overwrite it in the cache.
    @Test func aLateReadAnswerDoesNotOverwriteNewerPushedData() async throws {
        let connection = ScriptedConnection(json: json(#"{"a":1}"#))
        let db = Database(options: nil, connection: connection, persistence: nil)
        let ref = db.reference("a")
        connection.holdNextListen()
        let observer = EventRecorder(ref.snapshots())
        await expectEventually { connection.isHoldingListen }
        connection.holdNextGet()
        let read = Task { try await ref.getSnapshot() }
        await expectEventually { connection.isHoldingGet }  // it read 1
        connection.releaseHeldListen()
        await observer.wait(for: 1)
        connection.serverWrite("a", .int(2))
        await observer.wait(for: 2)
        connection.releaseHeldGet()
        #expect(try await read.value.value == .int(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(history(observer.all) == ["1", "2"])
        #expect(await db.engine.tree.child(at: Path("a")) == .leaf(.int(2)))
        await db.close()
    }
}
