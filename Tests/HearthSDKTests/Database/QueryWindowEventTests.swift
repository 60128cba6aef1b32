import Foundation
import HearthCore
import Testing

@testable import Hearth

/// Child events of ordered and limited queries against Firebase's rules: `moved` whenever the sort value changes, and a
/// limited window that never shows a child it cannot know belongs there.
@Suite("Query windows and moves")
struct QueryWindowEventTests {
    /// Firebase raises child_moved whenever a child's sort value changes (EventGenerator:
    /// `indexedValueChanged`), and ChildEvent.moved is documented as "A child's order value changed".
    @Test func movedWhenOrderValueChangesEvenIfNeighboursStay() async throws {
        let db = Database.inMemory()
        let scores = db.reference("scores")
        try await scores.setValue(["a": 1, "b": 2, "c": 3])
        let byValue = scores.queryOrderedByValue()
        let recorder = EventRecorder(byValue.childEvents())
        await recorder.wait(for: 3)
        try await scores.child("b").setValue(2.5)
        let events = await recorder.wait(for: 5)
        #expect(events.dropFirst(3).map(describe) == ["moved b after a", "changed b after a"])
    }

    /// Limit window: a child whose value changes so that it leaves the window.
    @Test func childLeavingLimitWindowOnValueChange() async throws {
        let db = Database.inMemory()
        let scores = db.reference("scores")
        try await scores.setValue(["a": 1, "b": 2, "c": 3])
        let top2 = scores.queryOrderedByValue().queryLimited(toLast: 2)
        let recorder = EventRecorder(top2.childEvents())
        #expect(await recorder.wait(for: 2).map(describe) == ["added b after -", "added c after b"])
        try await scores.child("c").setValue(0)
        try await Task.sleep(for: .milliseconds(500))
        #expect(recorder.all.dropFirst(2).map(describe) == ["removed c after b", "added a after -"])
    }

    /// Offline, a local write moves a child below a full limitToLast window: the client cannot know
    /// it is still in the top 2 (a hidden child may sort above it), yet it keeps showing it there.
    @Test func offlineWriteBelowFullLimitWindow() async throws {
        let server = InMemoryDatabaseServer(json: json(#"{"scores":{"a":1,"b":2,"c":3}}"#))
        let db = Database.inMemory(server: server)
        let scores = db.reference("scores")
        let top2 = scores.queryOrderedByValue().queryLimited(toLast: 2)
        let values = EventRecorder(top2.snapshots())
        #expect(await values.wait(for: 1).last?.children.compactMap(\.key) == ["b", "c"])
        await db.goOffline()
        let write = Task { try await scores.child("c").setValue(0) }
        await expectEventually { values.all.count >= 2 }
        // The true top 2 is [a, b]; Firebase's LimitedFilter shows [b] until the server answers.
        let shown = values.all.last?.children.compactMap(\.key) ?? []
        #expect(!shown.contains("c"), "top-2 window shows c=0 although a=1 exists: \(shown)")
        write.cancel()
        await db.close()
    }
}
