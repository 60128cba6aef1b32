import Foundation
import HearthCore
import Testing

@testable import Hearth

@Suite("Writes in flight together")
struct WritePipeliningTests {
    /// Writes queued while offline go out back to back once a socket is up, not one per round trip, still in order;
    /// each call completes with its own answer, and a refusal in the middle fails only its own call.
    @Test func queuedWritesGoOutTogetherAndEachGetsItsOwnAnswer() async throws {
        var rig = try WireRig()
        let db = rig.db
        let first = Task { try await db.reference("a").setValue(1) }
        try await Task.sleep(for: .milliseconds(20))
        let second = Task { try await db.reference("b").setValue(2) }
        try await Task.sleep(for: .milliseconds(20))
        let third = Task { try await db.reference("c").updateChildValues(["x": 3]) }
        try await Task.sleep(for: .milliseconds(20))

        let (socket, opened) = try await rig.connect(session: "s1")
        var client = opened
        // All three are on the wire before the server has answered any of them.
        var requests: [ClientRequest] = []
        while requests.count < 3 {
            let request = try await client.nextRequest()
            if request.action == "p" || request.action == "m" { requests.append(request) }
        }
        #expect(requests.map(\.action) == ["p", "p", "m"])
        #expect(requests.map { $0.body["p"]?.stringValue } == ["/a", "/b", "/c"])

        socket.deliverResponse(to: requests[0])
        socket.deliverResponse(to: requests[1], status: "permission_denied", data: .string("Permission denied"))
        socket.deliverResponse(to: requests[2])
        try await first.value
        let refusal = await second.result
        if case .failure(let error as DatabaseError) = refusal {
            #expect(error.code == .permissionDenied)
        } else {
            Issue.record("expected permission_denied, got \(refusal)")
        }
        try await third.value
        await rig.connection.close()
    }

    /// An increment (or a transaction) that is sent again after a lost answer would apply twice, so it never shares
    /// the wire: it waits for the writes before it, and the writes after it wait for its answer.
    @Test func anIncrementIsInFlightAlone() async throws {
        var rig = try WireRig()
        let db = rig.db
        let before = Task { try await db.reference("a").setValue(1) }
        try await Task.sleep(for: .milliseconds(20))
        let increment = Task { try await db.reference("coins").setValue(ServerValue.increment(5)) }
        try await Task.sleep(for: .milliseconds(20))
        let after = Task { try await db.reference("b").setValue(2) }
        try await Task.sleep(for: .milliseconds(20))

        let (socket, opened) = try await rig.connect(session: "s1")
        var client = opened
        func nextWrite() async throws -> ClientRequest {
            while true {
                let request = try await client.nextRequest()
                if request.action == "p" || request.action == "m" { return request }
            }
        }
        func sent(_ path: String) -> Bool { socket.framesSent.contains { $0.contains(#""p":"\#(path)""#) } }

        let first = try await nextWrite()
        #expect(first.body["p"] == .string("/a"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!sent("/coins"), "the increment waits for the answer before it")
        socket.deliverResponse(to: first)
        let second = try await nextWrite()
        #expect(second.body["p"] == .string("/coins"))
        #expect(sent("/coins"), "the check above can see a sent write")
        try await Task.sleep(for: .milliseconds(200))
        #expect(!sent("/b"), "the write after the increment waits for its answer")
        socket.deliverResponse(to: second)
        let third = try await nextWrite()
        #expect(third.body["p"] == .string("/b"))
        socket.deliverResponse(to: third)
        try await before.value
        try await increment.value
        try await after.value
        await rig.connection.close()
    }
}
