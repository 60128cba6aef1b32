import HearthCore
import Testing

@testable import Hearth

/// Listens start in child tasks of the engine's loop, so two calls for one view may reach the connection in either
/// order; the connection keeps the later arrival and fails the other with `unlistened`.
@Suite("Listens that reach the connection out of order")
struct ListenOrderTests {
    /// A view observed again right after its observer was cancelled: if the older listen reaches the connection
    /// last, the current one is failed with `unlistened`. The observer must not see that: the engine listens again.
    @Test func theCurrentListenReplacedByAnOlderCallListensAgain() async throws {
        let connection = ScriptedConnection(json: json(#"{"room":{"title":"hello"}}"#))
        let db = Database(options: nil, connection: connection, persistence: nil)
        connection.supersedeNextListen()
        let observer = EventRecorder(db.reference("room/title").snapshots())
        let events = await observer.wait(for: 1)
        #expect(events.first?.value == .string("hello"))
        #expect(observer.error == nil)
        #expect(connection.listenCalls.count == 2, "the refused listen is made again")
        connection.serverWrite("room/title", .string("changed"))
        await expectEventually { observer.all.last?.value == .string("changed") }
        await db.close()
    }
}
