import HearthCore
import HearthStore
import Testing

extension TriggerOutboxTests {
    /// A write by a trigger handling an event of depth n causes events of depth n + 1; a client's
    /// write (depth 0) causes events of depth 1.
    @Test(arguments: Backend.allCases)
    func eventsCarryTheirDepthInATriggerChain(backend: Backend) async throws {
        let db = try await makeDatabase(backend)
        try await put(db, "reservations/r1", "1")
        var request = WriteRequest(path: Path("reservations/r2"), operation: setOp("2"))
        request.triggerDepth = 5
        _ = try await db.write(request)
        let depths = try await events(db).map { "\($0.path) \($0.depth)" }
        #expect(depths == ["/reservations/r1 1", "/reservations/r1 1", "/reservations/r2 6", "/reservations/r2 6"])
    }
}
