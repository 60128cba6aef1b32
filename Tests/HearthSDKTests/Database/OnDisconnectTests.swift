import HearthCore
import Testing

@testable import Hearth

@Suite("Database: onDisconnect")
struct OnDisconnectTests {
    @Test func operationsRunWhenTheClientDisconnects() async throws {
        let server = InMemoryDatabaseServer()
        let alice = Database.inMemory(server: server)
        let observer = Database.inMemory(server: server)
        let status = alice.reference("status/alice")
        try await status.onDisconnect().setValue("offline")
        try await alice.reference("rooms/r1/members").onDisconnect().updateChildValues(["alice": nil as Bool?, "count": 0])
        try await status.setValue("online")
        try await alice.reference("rooms/r1/members").setValue(json: json(#"{"alice":true,"count":1}"#))

        let recorder = EventRecorder(observer.reference("status/alice").snapshots())
        #expect(await recorder.wait(for: 1).last?.value == .string("online"))
        await alice.goOffline()
        #expect(await recorder.wait(for: 2).last?.value == .string("offline"))
        #expect(await server.value(at: "rooms/r1/members") == .object([JSONMember("count", .int(0))]))
    }

    @Test func cancelledOperationsDoNotRun() async throws {
        let server = InMemoryDatabaseServer()
        let db = Database.inMemory(server: server)
        let ref = db.reference("presence/x")
        try await ref.setValue(true)
        try await ref.onDisconnect().removeValue()
        try await db.reference("presence").onDisconnect().cancel()
        await db.goOffline()
        #expect(await server.connectedClients == 0)
        #expect(await server.value(at: "presence/x") == .bool(true))
    }

    @Test func closingRunsOperationsToo() async throws {
        let server = InMemoryDatabaseServer(now: { 42 })
        let db = Database.inMemory(server: server)
        try await db.reference("lastSeen").onDisconnect().setValue(Hearth.ServerValue.timestamp)
        await db.close()
        #expect(await server.value(at: "lastSeen") == .int(42))
    }
}
