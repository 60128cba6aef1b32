import Foundation
import HearthCore
import HearthWire
import Testing

@testable import Hearth

/// Across sockets: reconnecting with backoff, restoring state, going offline, closing, shutdown.
@Suite(.timeLimit(.minutes(1)))
struct PersistentConnectionReconnectTests {
    /// Server URL, namespace, last session id, expected WebSocket URL.
    typealias EndpointCase = (String, String, String?, String)

    @Test func reconnectRestoresAuthListensOnDisconnectsAndUnansweredWritesInOrder() async throws {
        var h = try RealtimeHarness(token: "tok")
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect(session: "first-session")
        #expect(!socket.url.absoluteString.contains("ls="))
        let auth = try await client.nextRequest()
        socket.deliverResponse(to: auth, data: .object([]))

        // Two listens (acknowledged), one onDisconnect (accepted), two writes left unanswered.
        let query = Query(order: .child(Path("score")), limit: .last(3))
        async let usersAck = connection.listen(path: Path("users"), query: nil, tag: nil, hash: "h1")
        let users = try await client.nextRequest()
        async let topAck = connection.listen(path: Path("scores"), query: query, tag: 1, hash: "")
        let top = try await client.nextRequest()
        socket.deliverResponse(to: users, data: .object([]))
        socket.deliverResponse(to: top, data: .object([]))
        _ = try await (usersAck, topAck)
        async let presence: Void = connection.onDisconnectPut(path: Path("status/me"), data: .string("offline"))
        let o = try await client.nextRequest()
        socket.deliverResponse(to: o)
        try await presence
        let first = Task { try await connection.put(path: Path("a"), data: .int(1), hash: nil) }
        _ = try await client.nextRequest()
        let second = Task { try await connection.merge(path: Path("b"), data: [JSONMember("c", .int(2))]) }
        _ = try await client.nextRequest()

        socket.drop()
        #expect(await h.nextEvent() == .disconnected)
        // A write made while disconnected waits for the next socket.
        let third = Task { try await connection.put(path: Path("d"), data: .int(3), hash: nil) }
        await expectEventually { await connection.pending.count == 3 }

        #expect(await h.clock.waitForSleeps { $0 == [.seconds(1)] })
        h.clock.advance(by: .seconds(1))
        var (next, nextClient) = try await h.connect(session: "second-session")
        #expect(next.url.absoluteString == "ws://127.0.0.1:9000/.ws?v=5&ns=demo&ls=first-session")

        var resent: [ClientRequest] = []
        for _ in 0..<7 { resent.append(try await nextClient.nextRequest()) }
        #expect(resent.map(\.action) == ["auth", "q", "q", "o", "p", "m", "p"])
        #expect(resent[0].body == (try parsedJSON(#"{"cred":"tok"}"#)))
        // Re-sent without the hash of the cache the listen started from (see the next test).
        #expect(resent[1].body == (try parsedJSON(#"{"p":"/users","h":""}"#)))
        #expect(resent[2].body == (try parsedJSON(#"{"p":"/scores","q":{"l":3,"vf":"r","i":"score"},"t":1,"h":""}"#)))
        #expect(resent[3].body == (try parsedJSON(#"{"p":"/status/me","d":"offline"}"#)))
        #expect(resent[4].body == (try parsedJSON(#"{"p":"/a","d":1}"#)))
        #expect(resent[5].body == (try parsedJSON(#"{"p":"/b","d":{"c":2}}"#)))
        #expect(resent[6].body == (try parsedJSON(#"{"p":"/d","d":3}"#)))
        #expect(zip(resent, resent.dropFirst()).allSatisfy { $0.id < $1.id })

        for request in resent where ["p", "m"].contains(request.action) { next.deliverResponse(to: request) }
        try await first.value
        try await second.value
        try await third.value
        #expect(await connection.pending.isEmpty)
        await connection.close()
    }

    /// Every `ok` to a listen is an event, in order with the pushes before it and the socket's end after it:
    /// the database marks data current on it (a call's return, on another task, could be seen after the
    /// `disconnected` that followed it). A re-sent listen is acknowledged too, though no call waits for it,
    /// and it is re-sent without the old cache hash: the data may have changed back to it since.
    @Test func everyListenAcknowledgementIsAnEventInOrderWithPushesAndDisconnects() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect(session: "first")
        async let ack = connection.listen(path: Path("home/heater"), query: nil, tag: nil, hash: "cached-false")
        let listen = try await client.nextRequest()
        #expect(listen.body == (try parsedJSON(#"{"p":"/home/heater","h":"cached-false"}"#)))
        socket.deliver(try RealtimeMessage(parsing: #"{"t":"d","d":{"a":"d","b":{"p":"home/heater","d":true}}}"#))
        socket.deliverResponse(to: listen, data: .object([]))
        _ = try await ack
        #expect(await h.nextEvent(acknowledgements: true) == .overwrite(path: Path("home/heater"), data: .bool(true), tag: nil))
        #expect(await h.nextEvent(acknowledgements: true) == .listenAcknowledged(path: Path("home/heater"), query: nil))
        socket.drop()
        #expect(await h.nextEvent(acknowledgements: true) == .disconnected)

        #expect(await h.clock.waitForSleeps { $0 == [.seconds(1)] })
        h.clock.advance(by: .seconds(1))
        var (next, nextClient) = try await h.connect(session: "second")
        let relisten = try await nextClient.nextRequest()
        #expect(relisten.body == (try parsedJSON(#"{"p":"/home/heater","h":""}"#)))
        next.deliverResponse(to: relisten, data: .object([]))
        #expect(await h.nextEvent(acknowledgements: true) == .listenAcknowledged(path: Path("home/heater"), query: nil))
        await connection.close()
    }

    @Test func cancelledOnDisconnectOperationsAreNotReRegistered() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        for (path, value) in [("rooms/1/me", "gone"), ("status/me", "offline")] {
            async let registered: Void = connection.onDisconnectPut(path: Path(path), data: .string(value))
            socket.deliverResponse(to: try await client.nextRequest())
            try await registered
        }
        async let cancelled: Void = connection.onDisconnectCancel(path: Path("rooms"))
        socket.deliverResponse(to: try await client.nextRequest())
        try await cancelled

        socket.drop()
        #expect(await h.nextEvent() == .disconnected)
        #expect(await h.clock.waitForSleeps { $0 == [.seconds(1)] })
        h.clock.advance(by: .seconds(1))
        var (_, nextClient) = try await h.connect(session: "s2")
        let reregistered = try await nextClient.nextRequest()
        #expect(reregistered.action == "o")
        #expect(reregistered.body == (try parsedJSON(#"{"p":"/status/me","d":"offline"}"#)))
        #expect(await connection.onDisconnectOperations.map(\.path) == [Path("status/me")])
        await connection.close()
    }

    @Test func backoffDoublesUpToThirtySeconds() async throws {
        let h = try RealtimeHarness()
        h.factory.refusing = true
        await h.connection.open()
        let expected: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)]
        for (attempt, delay) in expected.enumerated() {
            #expect(await h.clock.waitForSleeps { $0 == [delay] }, "retry \(attempt) should wait \(delay)")
            #expect(h.factory.attempts.count == attempt + 1)
            h.clock.advance(by: delay)
        }
        await h.connection.close()
    }

    @Test func backoffHasJitter() {
        let backoff = RealtimeBackoff()
        #expect(backoff.delay(attempt: 0, random: 0) == .seconds(1))
        #expect(backoff.delay(attempt: 0, random: 0.5) == .milliseconds(750))
        #expect(backoff.delay(attempt: 2, random: 1) == .seconds(2))
        #expect(backoff.delay(attempt: 50, random: 0) == .seconds(30))
        let noJitter = RealtimeBackoff(jitter: 0)
        #expect(noJitter.delay(attempt: 1, random: 0.9) == .seconds(2))
    }

    @Test(arguments: [(Duration.seconds(31), Duration.seconds(1)), (Duration.seconds(10), Duration.seconds(4))])
    func backoffStartsOverAfterAConnectionThatStayedUp(uptime: Duration, nextDelay: Duration) async throws {
        var h = try RealtimeHarness { $0.keepAliveInterval = .seconds(3600) }
        h.factory.refusing = true
        await h.connection.open()
        for delay in [Duration.seconds(1), .seconds(2)] {
            #expect(await h.clock.waitForSleeps { $0 == [delay] })
            if delay == .seconds(2) { h.factory.refusing = false }
            h.clock.advance(by: delay)
        }
        let (socket, _) = try await h.connect()
        h.clock.advance(by: uptime)
        socket.drop()
        #expect(await h.nextEvent() == .disconnected)
        #expect(await h.clock.waitForSleeps { $0 == [nextDelay] })
        await h.connection.close()
    }

    @Test func goingOfflineKeepsWritesAndComingBackSendsThem() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        let (socket, _) = try await h.connect()

        await connection.setOnline(false)
        #expect(await h.nextEvent() == .disconnected)
        await expectEventually { socket.isClosed }
        await expectEventually { h.clock.pendingSleeps.isEmpty }
        let write = Task { try await connection.put(path: Path("offline"), data: .bool(true), hash: nil) }
        await expectEventually { await connection.pending.count == 1 }
        #expect(h.factory.attempts.count == 1)

        await connection.setOnline(true)
        var (next, client) = try await h.connect(session: "s2")
        #expect(h.factory.attempts.count == 2)
        let put = try await client.nextRequest()
        #expect(put.body == (try parsedJSON(#"{"p":"/offline","d":true}"#)))
        next.deliverResponse(to: put)
        try await write.value
        await connection.close()
    }

    @Test func closeFailsWaitingCallsAndFinishesEvents() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        let write = Task { try await connection.put(path: Path("a"), data: .int(1), hash: nil) }
        _ = try await client.nextRequest()
        let listen = Task { try await connection.listen(path: Path("b"), query: nil, tag: nil, hash: "") }
        _ = try await client.nextRequest()

        await connection.close()
        await #expect(throws: RealtimeError.closed) { try await write.value }
        await #expect(throws: RealtimeError.closed) { try await listen.value }
        await expectEventually { socket.isClosed }
        #expect(await h.nextEvent() == .disconnected)
        #expect(await h.nextEvent() == nil)
        await #expect(throws: RealtimeError.closed) { try await connection.get(path: .root, query: nil) }
        // Closing twice is harmless.
        await connection.close()
    }

    @Test("server shutdown: no retries until goOnline, waiting reads fail, a waiting write goes out again and completes")
    func serverShutdownStopsRetryingAndKeepsWrites() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        let write = Task { try await connection.put(path: Path("a"), data: .int(1), hash: nil) }
        let sentWrite = try await client.nextRequest()
        #expect(sentWrite.action == "p")
        let read = Task { try await connection.get(path: Path("r"), query: nil) }
        #expect(try await client.nextRequest().action == "g")

        socket.deliver(.control(type: "s", payload: .string("maintenance")))
        #expect(await h.nextEvent() == .disconnected)
        await #expect(throws: RealtimeError(status: "disconnected", message: "The server shut the connection down: maintenance")) {
            try await read.value
        }
        await expectEventually { socket.isClosed }
        await expectEventually { h.clock.pendingSleeps.isEmpty }
        #expect(h.factory.attempts.count == 1)

        // The app comes back online explicitly: the write is sent again, first, and completes.
        await connection.setOnline(true)
        var (next, nextClient) = try await h.connect(session: "s2")
        let resent = try await nextClient.nextRequest()
        #expect(resent.action == "p")
        #expect(resent.body == sentWrite.body)
        next.deliverResponse(to: resent)
        try await write.value
        await connection.close()
    }

    @Test func serverResetReconnectsAtOnce() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        let (socket, _) = try await h.connect()
        socket.deliver(.control(type: "r", payload: .string("other-host:9000")))
        #expect(await h.nextEvent() == .disconnected)
        let (next, _) = try await h.connect(session: "s2")
        #expect(next.url.absoluteString.hasSuffix("ls=s1"))
        #expect(h.clock.pendingSleeps.allSatisfy { $0 != .seconds(1) })
        await connection.close()
    }

    @Test func listenRefusedAfterReconnectIsReportedAsRevoked() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        async let ack = connection.listen(path: Path("secret"), query: nil, tag: nil, hash: "")
        socket.deliverResponse(to: try await client.nextRequest(), data: .object([]))
        _ = try await ack

        socket.drop()
        #expect(await h.nextEvent() == .disconnected)
        #expect(await h.clock.waitForSleeps { $0 == [.seconds(1)] })
        h.clock.advance(by: .seconds(1))
        var (next, nextClient) = try await h.connect(session: "s2")
        let relisten = try await nextClient.nextRequest()
        #expect(relisten.action == "q")
        next.deliverResponse(to: relisten, status: "permission_denied", data: .string("Permission denied"))
        #expect(await h.nextEvent() == .listenRevoked(path: Path("secret"), query: nil))
        #expect(await connection.listens.isEmpty)
        await connection.close()
    }

    @Test(arguments: [
        ("http://127.0.0.1:9000", "demo", nil, "ws://127.0.0.1:9000/.ws?v=5&ns=demo"),
        ("https://db.hearth.test", "proj", "abc", "wss://db.hearth.test/.ws?v=5&ns=proj&ls=abc"),
        ("https://db.hearth.test/prefix/", "proj", nil, "wss://db.hearth.test/prefix/.ws?v=5&ns=proj"),
    ] as [EndpointCase])
    func endpointURL(_ example: EndpointCase) throws {
        let (server, namespace, lastSession, expected) = example
        let url = RealtimeEndpoint.url(serverURL: try #require(URL(string: server)), namespace: namespace, lastSessionID: lastSession)
        #expect(url?.absoluteString == expected)
    }

    @Test func endpointRejectsOtherSchemes() throws {
        #expect(RealtimeEndpoint.url(serverURL: try #require(URL(string: "ftp://host")), namespace: "x", lastSessionID: nil) == nil)
    }
}
