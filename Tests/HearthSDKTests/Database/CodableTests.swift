import Foundation
import HearthCore
import Testing

@testable import Hearth

@Suite("Database: Codable values and typed errors")
struct CodableTests {
    struct User: Codable, Equatable, Sendable {
        var name: String
        var age: Int
        var tags: [String]
        var address: Address?
    }

    struct Address: Codable, Equatable, Sendable {
        var city: String
    }

    @Test func codableRoundTrip() async throws {
        let db = Database.inMemory()
        let ref = db.reference("users/alice")
        let alice = User(name: "Alice", age: 31, tags: ["a", "b"], address: Address(city: "Oslo"))
        try await ref.setValue(alice)
        #expect(try await ref.getValue(as: User.self) == alice)
        #expect(try await ref.child("tags").getValue(as: [String].self) == ["a", "b"])
        #expect(try await ref.child("address/city").getValue(as: String.self) == "Oslo")
        let snapshot = try await ref.getSnapshot()
        #expect(snapshot.exists)
        #expect(snapshot.key == "alice")
        #expect(snapshot.childrenCount == 4)
        #expect(snapshot.value["age"] == .int(31))
        #expect(snapshot.childSnapshot(forPath: "address/city").value == .string("Oslo"))
        #expect(snapshot.hasChild("tags/1"))
        #expect(!snapshot.hasChild("missing"))
    }

    @Test func missingValueThrowsNotFoundOrDecodesNil() async throws {
        let db = Database.inMemory()
        let ref = db.reference("nothing/here")
        await #expect(throws: DatabaseError.notFound("/nothing/here")) {
            _ = try await ref.getValue(as: User.self)
        }
        let optional = try await ref.getValue(as: User?.self)
        #expect(optional == nil)
        let snapshot = try await ref.getSnapshot()
        #expect(!snapshot.exists)
        #expect(snapshot.value == .null)
    }

    @Test func wrongShapeThrowsDecodingFailed() async throws {
        let db = Database.inMemory()
        let ref = db.reference("users/bob")
        try await ref.setValue(["name": "Bob"])
        do {
            _ = try await ref.getValue(as: User.self)
            Issue.record("decoding should fail")
        } catch {
            #expect(error.code == .decodingFailed)
            #expect(error.path == "/users/bob")
            #expect(error.cause is DecodingError)
        }
    }

    @Test func aNumberThatDoesNotFitNamesItsField() async throws {
        struct Score: Decodable { var points: Int }
        struct Board: Decodable { var title: String; var scores: [Score] }
        let db = Database.inMemory()
        let ref = db.reference("boards/b1")
        try await ref.setValue(json: try JSONValue.parse(#"{"title":"t","scores":[{"points":3},{"points":2.5}]}"#))
        do {
            _ = try await ref.getValue(as: Board.self)
            Issue.record("decoding should fail")
        } catch {
            #expect(error.code == .decodingFailed)
            guard case DecodingError.dataCorrupted(let context)? = error.cause as? DecodingError else {
                Issue.record("expected dataCorrupted, got \(String(describing: error.cause))")
                return
            }
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            #expect(path == ["scores", "1", "points"])
        }
    }

    @Test(arguments: ["a.b", "a$", "x#", "[y]"])
    func invalidKeysAreRefused(key: String) async throws {
        let db = Database.inMemory()
        do {
            try await db.reference("ok").child(key).setValue(1)
            Issue.record("write to \(key) should fail")
        } catch {
            #expect(error.code == .invalidPath)
        }
    }

    @Test func invalidDataIsRefusedBeforeAnyWrite() async throws {
        let connection = ScriptedConnection()
        let db = Database(options: nil, connection: connection, persistence: nil)
        do {
            try await db.reference("a").updateChildValues(json: ["x": .int(1), "x/y": .int(2)])
            Issue.record("overlapping update paths should fail")
        } catch {
            #expect(error.code == .invalidData)
        }
        #expect(connection.writes.isEmpty)
    }

    @Test func arraysAndPrioritiesRoundTrip() async throws {
        let db = Database.inMemory()
        let ref = db.reference("list")
        try await ref.setValue([10, 20, 30])
        #expect(try await ref.getValue(as: [Int].self) == [10, 20, 30])
        try await ref.child("1").removeValue()
        #expect(try await ref.getValue(as: [Int?].self) == [10, nil, 30])
        try await db.reference("p").setValue("x", priority: 5)
        let p = try await db.reference("p").getSnapshot()
        #expect(p.priority == .int(5))
        #expect(p.value == .string("x"))
        #expect(p.exportValue == .object([JSONMember(".priority", .int(5)), JSONMember(".value", .string("x"))]))
    }

    @Test func serverValuesAreResolvedByTheServer() async throws {
        let server = InMemoryDatabaseServer(now: { 1_234_567 })
        let db = Database.inMemory(server: server)
        struct Stamped: Encodable {
            var text = "hi"
            var at = Hearth.ServerValue.timestamp
        }
        try await db.reference("s").setValue(Stamped())
        #expect(await server.value(at: "s/at") == .int(1_234_567))
        try await db.reference("n").setValue(5)
        try await db.reference("n").setValue(Hearth.ServerValue.increment(2))
        #expect(await server.value(at: "n") == .int(7))
        try await db.reference("d").updateChildValues(["v": Hearth.ServerValue.increment(1.5)])
        #expect(await server.value(at: "d/v") == .double(1.5))
    }

    @Test func serverValueEncodesAsPlaceholder() async throws {
        let connection = ScriptedConnection()
        let db = Database(options: nil, connection: connection, persistence: nil)
        try await db.reference("t").setValue(["at": Hearth.ServerValue.timestamp])
        try await db.reference("c").setValue(Hearth.ServerValue.increment(3))
        #expect(
            connection.puts == [
                .put(path: "/t", data: .object([JSONMember("at", .object([JSONMember(".sv", .string("timestamp"))]))]), hash: nil),
                .put(path: "/c", data: .object([JSONMember(".sv", .object([JSONMember("increment", .int(3))]))]), hash: nil),
            ])
        #expect(connection.serverValue("c") == .int(3))
        #expect(connection.serverValue("t/at") == .int(connection.serverNow))
    }

    @Test func localEstimateOfServerTimestampUsesTheOffset() async throws {
        let connection = ScriptedConnection(holdWrites: true, serverTimeOffset: 500)
        let db = Database(options: nil, connection: connection, persistence: nil, now: { 1_000 })
        await expectEventually { db.serverTimeOffset == .milliseconds(500) }
        let recorder = EventRecorder(db.reference("t").snapshots())
        await recorder.wait(for: 1)
        let write = Task { try await db.reference("t").setValue(Hearth.ServerValue.timestamp) }
        let events = await recorder.wait(for: 2)
        #expect(events.last?.value == .int(1_500))
        connection.answerNextWrite()
        try await write.value
    }
}
