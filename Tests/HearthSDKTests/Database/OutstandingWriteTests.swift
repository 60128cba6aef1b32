import Foundation
import HearthCore
import HearthWire
import Synchronization
import Testing

@testable import Hearth

/// A `Database` on a real `PersistentConnection` whose sockets are fake (the test plays the
/// server): the whole client stack from `setValue` down to the wire, without a network.
struct WireRig {
    let factory = FakeTransportFactory()
    let clock = ManualRealtimeClock()
    let connection: PersistentConnection
    let db: Database
    var sockets: AsyncStream<FakeSocket>.Iterator

    init(persistence: URL? = nil) throws {
        connection = PersistentConnection(
            serverURL: try #require(URL(string: "http://127.0.0.1:9000")), namespace: "demo", authToken: nil,
            transportFactory: factory, clock: clock, random: { 0 })
        db = Database(options: nil, connection: connection, persistence: persistence)
        sockets = factory.sockets.makeAsyncIterator()
        // Calls waiting for the server cannot be cancelled: a watchdog closes the connection so a
        // failing test ends instead of hanging.
        Task { [connection] in
            try? await Task.sleep(for: .seconds(30))
            guard await !connection.state.isClosed else { return }
            await connection.close()
        }
    }

    /// The next socket the connection opens, after the server's handshake on it.
    mutating func connect(session: String) async throws -> (FakeSocket, ClientMessages) {
        let socket = try #require(await sockets.next())
        let client = ClientMessages(socket)
        socket.deliverHandshake(timestamp: clock.millisecondsSince1970, session: session)
        return (socket, client)
    }
}

/// Reads client requests on one socket, answering each `p`/`m` with ok, until a write to `last`
/// was seen; returns the write paths in the order they went out.
func answerWrites(_ socket: FakeSocket, _ client: inout ClientMessages, until last: String) async throws -> [String] {
    var paths: [String] = []
    while true {
        let request = try await client.nextRequest()
        guard request.action == "p" || request.action == "m" else { continue }
        let path = request.body["p"]?.stringValue ?? "?"
        paths.append(path)
        socket.deliverResponse(to: request)
        if path == last { return paths }
    }
}

@Suite("Outstanding writes across a server shutdown or a reset")
struct OutstandingWriteTests {
    /// S1: the server sends `s` (going away) while a write waits for its answer. The write stays
    /// shown locally; when the app comes back online it must go out again, before later writes, and
    /// its `setValue` must complete once the server acknowledges it (as Firebase re-sends
    /// outstanding puts on the next connection).
    @Test func writeOutstandingAtServerShutdownIsResentAfterGoOnline() async throws {
        var rig = try WireRig()
        let db = rig.db
        let (s1, openedS1) = try await rig.connect(session: "s1")
        var c1 = openedS1

        let first = Task { try await db.reference("a").setValue(1) }
        let put = try await c1.nextRequest()
        #expect(put.action == "p")
        #expect(put.body["p"] == .string("/a"))
        // The server goes away before answering.
        s1.deliver(.control(type: "s", payload: .string("maintenance")))
        await expectEventually { s1.isClosed }
        // The write is still shown locally.
        #expect(try await db.reference("a").getSnapshot().value == .int(1))

        await db.goOnline()
        let (s2, openedS2) = try await rig.connect(session: "s2")
        var c2 = openedS2
        let second = Task { try await db.reference("b").setValue(2) }
        // (The rig's watchdog ends this if the write never comes.)
        let order = try await answerWrites(s2, &c2, until: "/b")
        #expect(order == ["/a", "/b"], "writes sent on the new socket: \(order)")
        try await withTimeout(10) { try await second.value }
        let firstResult = await first.result
        #expect(throws: Never.self, "the first setValue should complete once re-sent and acknowledged") { try firstResult.get() }
        await db.close()
    }

    /// The same write at a socket reset (the network drops): it is re-sent on the next socket and
    /// its `setValue` completes.
    @Test func writeOutstandingAtSocketResetIsResentAndCompletes() async throws {
        var rig = try WireRig()
        let db = rig.db
        let (s1, openedS1) = try await rig.connect(session: "s1")
        var c1 = openedS1

        let first = Task { try await db.reference("a").setValue(1) }
        let put = try await c1.nextRequest()
        #expect(put.body["p"] == .string("/a"))
        s1.drop()
        // Move the manual clock on until the connection opens its next socket (backoff waits).
        let clock = rig.clock
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                clock.advance(by: .seconds(1))
            }
        }
        let s2 = try #require(await rig.sockets.next())
        ticker.cancel()
        var c2 = ClientMessages(s2)
        s2.deliverHandshake(timestamp: rig.clock.millisecondsSince1970, session: "s2")
        let order = try await answerWrites(s2, &c2, until: "/a")
        #expect(order == ["/a"])
        try await withTimeout(10) { try await first.value }
        await db.close()
    }

    /// With persistence: the write waiting at `s` goes out again (before the newer one) when the
    /// app comes back online, and the next launch has nothing left to send: no stale value can
    /// overwrite the newer one on the server.
    @Test func writeLeftBehindAtShutdownDoesNotResurfaceOnTheNextLaunch() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            var rig = try WireRig(persistence: folder)
            let db = rig.db
            let (s1, openedS1) = try await rig.connect(session: "s1")
            var c1 = openedS1
            let first = Task { try await db.reference("x").setValue("old") }
            _ = try await c1.nextRequest()
            s1.deliver(.control(type: "s", payload: .string("maintenance")))
            // The frame is read asynchronously: go online only once the connection went offline.
            await expectEventually { await !rig.connection.state.isOnline }
            await db.goOnline()
            let (s2, openedS2) = try await rig.connect(session: "s2")
            var c2 = openedS2
            var values: [JSONValue] = []
            while values.count < 1 {
                let request = try await c2.nextRequest()
                guard request.action == "p" else { continue }
                values.append(request.body["d"] ?? .null)
                s2.deliverResponse(to: request)
            }
            try await first.value
            let newer = Task { try await db.reference("x").setValue("new") }
            while values.count < 2 {
                let request = try await c2.nextRequest()
                guard request.action == "p" else { continue }
                values.append(request.body["d"] ?? .null)
                s2.deliverResponse(to: request)
            }
            try await newer.value
            #expect(values == [.string("old"), .string("new")])
            await db.close()
        }
        // The next launch.
        var rig = try WireRig(persistence: folder)
        let db = rig.db
        let (s3, openedS3) = try await rig.connect(session: "s3")
        var c3 = openedS3
        let sentinel = Task { try await db.reference("sentinel").setValue(true) }
        var resent: [(String, JSONValue)] = []
        while true {
            let request = try await c3.nextRequest()
            guard request.action == "p" || request.action == "m" else { continue }
            let path = request.body["p"]?.stringValue ?? "?"
            resent.append((path, request.body["d"] ?? .null))
            s3.deliverResponse(to: request)
            if path == "/sentinel" { break }
        }
        try await sentinel.value
        #expect(resent.map(\.0) == ["/sentinel"], "the next launch sent: \(resent)")
        await db.close()
    }
}
