import Foundation
import HearthCore
import HearthWire
import Synchronization
import Testing

@testable import Hearth

/// The protocol on one socket: handshake, auth, listens, writes, pushes and framing.
@Suite(.timeLimit(.minutes(1)))
struct PersistentConnectionTests {
    @Test func handshakeReportsConnectedWithTheServerTimeOffset() async throws {
        var h = try RealtimeHarness(serverURL: "https://db.hearth.test:8443", namespace: "demo-ns")
        await h.connection.open()
        let socket = try await h.nextSocket()
        #expect(socket.url.absoluteString == "wss://db.hearth.test:8443/.ws?v=5&ns=demo-ns")
        #expect(socket.headers["User-Agent"] != nil)
        socket.deliverHandshake(timestamp: h.clock.millisecondsSince1970 + 1500, session: "s1")
        #expect(await h.nextEvent() == .connected(serverTimeOffset: 1500))
        await h.connection.close()
        #expect(await h.nextEvent() == .disconnected)
        #expect(await h.nextEvent() == nil)
    }

    @Test func authGoesFirstThenTheListensMadeWhileConnecting() async throws {
        var h = try RealtimeHarness(token: "id-token")
        let connection = h.connection
        async let ack = connection.listen(path: Path("users"), query: nil, tag: nil, hash: "")
        await expectEventually { await connection.listens.count == 1 }
        await connection.open()
        var (socket, client) = try await h.connect()

        let auth = try await client.nextRequest()
        #expect(auth.action == "auth")
        #expect(auth.body == (try parsedJSON(#"{"cred":"id-token"}"#)))
        let listen = try await client.nextRequest()
        #expect(listen.action == "q")
        #expect(listen.body == (try parsedJSON(#"{"p":"/users","h":""}"#)))
        #expect(listen.id > auth.id)

        socket.deliverResponse(to: auth, data: try parsedJSON(#"{"auth":{"uid":"ada"},"expires":1}"#))
        socket.deliverResponse(to: listen, data: .object([]))
        let acknowledgement = try await ack
        #expect(acknowledgement == ListenAcknowledgement(warnings: []))
        await connection.close()
    }

    @Test func aRequestMadeAfterSignInGoesOutAfterTheNewTokensAuth() async throws {
        // The app's token source already has the new token; the relay that would call
        // setAuthToken has not run yet. The write must still go out as the new user.
        let current = TokenHolder()
        var h = try RealtimeHarness(tokens: current)
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        current.token = "new-user-token"
        async let write: Void = connection.put(path: Path("users/ada"), data: .bool(true), hash: nil)
        let auth = try await client.nextRequest()
        #expect(auth.action == "auth")
        #expect(auth.body == (try parsedJSON(#"{"cred":"new-user-token"}"#)))
        let put = try await client.nextRequest()
        #expect(put.action == "p")
        #expect(put.id > auth.id)
        socket.deliverResponse(to: auth, data: try parsedJSON(#"{"auth":{"uid":"ada"},"expires":1}"#))
        socket.deliverResponse(to: put)
        try await write
        // Signing out is caught up with the same way: unauth before the next request.
        current.token = nil
        async let read = connection.get(path: Path("users/ada"), query: nil)
        let unauth = try await client.nextRequest()
        #expect(unauth.action == "unauth")
        let get = try await client.nextRequest()
        #expect(get.action == "g")
        socket.deliverResponse(to: get, data: .null)
        _ = try await read
        await connection.close()
    }

    @Test func listenDeliversInitialDataBeforeItsAcknowledgement() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let acknowledged = Flag()
        let listening = Task {
            let ack = try await connection.listen(path: Path("users"), query: nil, tag: nil, hash: "cached-hash")
            acknowledged.set()
            return ack
        }
        let listen = try await client.nextRequest()
        #expect(listen.body == (try parsedJSON(#"{"p":"/users","h":"cached-hash"}"#)))

        let users = try parsedJSON(#"{"jack":{"name":"Jack"}}"#)
        socket.deliver(.push(action: "d", body: .object([JSONMember("p", .string("users")), JSONMember("d", users)])))
        #expect(await h.nextEvent() == .overwrite(path: Path("users"), data: users, tag: nil))
        #expect(!acknowledged.isSet)

        socket.deliverResponse(to: listen, data: try parsedJSON(#"{"w":["no_index"]}"#))
        let ack = try await listening.value
        #expect(ack.warnings == ["no_index"])
        #expect(acknowledged.isSet)
        await connection.close()
    }

    @Test func taggedQueryListenWireShapeAndTaggedPushes() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let query = Query(order: .child(Path("height")), start: Query.Bound(value: .number(2.5)), limit: .first(2))
        async let ack = connection.listen(path: Path("dinosaurs"), query: query, tag: 7, hash: "")
        let listen = try await client.nextRequest()
        #expect(listen.action == "q")
        #expect(listen.body == (try parsedJSON(#"{"p":"/dinosaurs","q":{"sp":2.5,"sin":true,"l":2,"vf":"l","i":"height"},"t":7,"h":""}"#)))

        socket.deliver(try RealtimeMessage(parsing: #"{"t":"d","d":{"a":"d","b":{"p":"/dinosaurs","d":{"stego":{"height":4}},"t":7}}}"#))
        #expect(await h.nextEvent() == .overwrite(path: Path("dinosaurs"), data: try parsedJSON(#"{"stego":{"height":4}}"#), tag: 7))
        socket.deliverResponse(to: listen, data: .object([]))
        let acknowledgement = try await ack
        #expect(acknowledgement.warnings.isEmpty)

        socket.deliver(try RealtimeMessage(parsing: #"{"t":"d","d":{"a":"m","b":{"p":"dinosaurs","d":{"stego/height":5,"lambeo":null},"t":7}}}"#))
        #expect(
            await h.nextEvent()
                == .merge(path: Path("dinosaurs"), data: [JSONMember("stego/height", .int(5)), JSONMember("lambeo", .null)], tag: 7))

        await connection.unlisten(path: Path("dinosaurs"), query: query, tag: 7)
        let unlisten = try await client.nextRequest()
        #expect(unlisten.action == "n")
        #expect(unlisten.body == (try parsedJSON(#"{"p":"/dinosaurs","q":{"sp":2.5,"sin":true,"l":2,"vf":"l","i":"height"},"t":7}"#)))
        await connection.close()
    }

    @Test func putWithAStaleHashFailsWithDatastale() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let write = Task { try await connection.put(path: Path("counter"), data: .int(2), hash: "old-hash") }
        let put = try await client.nextRequest()
        #expect(put.action == "p")
        #expect(put.body == (try parsedJSON(#"{"p":"/counter","d":2,"h":"old-hash"}"#)))
        socket.deliverResponse(to: put, status: "datastale", data: .string("Transaction hash does not match"))
        await #expect(throws: RealtimeError(status: "datastale", message: "Transaction hash does not match")) { try await write.value }
        await connection.close()
    }

    @Test func putAndMergeWireShapesAndAnswers() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        async let put: Void = connection.put(path: .root, data: try parsedJSON(#"{"a":1}"#), hash: nil)
        let putRequest = try await client.nextRequest()
        #expect(putRequest.body == (try parsedJSON(#"{"p":"/","d":{"a":1}}"#)))
        socket.deliverResponse(to: putRequest)
        try await put

        let changes = [JSONMember("name", .string("Ada")), JSONMember("address/city", .string("London"))]
        let merge = Task { try await connection.merge(path: Path("users/ada"), data: changes) }
        let mergeRequest = try await client.nextRequest()
        #expect(mergeRequest.action == "m")
        #expect(mergeRequest.body == (try parsedJSON(#"{"p":"/users/ada","d":{"name":"Ada","address/city":"London"}}"#)))
        socket.deliverResponse(to: mergeRequest, status: "permission_denied", data: .string("Permission denied"))
        await #expect(throws: RealtimeError(status: "permission_denied", message: "Permission denied")) { try await merge.value }
        await connection.close()
    }

    @Test func getSendsThePathAndQueryAndReturnsTheValue() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        async let value = connection.get(path: Path("scores"), query: Query(order: .value, limit: .last(1)))
        let get = try await client.nextRequest()
        #expect(get.action == "g")
        #expect(get.body == (try parsedJSON(#"{"p":"/scores","q":{"l":1,"vf":"r","i":".value"}}"#)))
        socket.deliverResponse(to: get, data: try parsedJSON(#"{"ada":99}"#))
        let result = try await value
        #expect(result == (try parsedJSON(#"{"ada":99}"#)))

        async let plain = connection.get(path: Path("x"), query: nil)
        let plainGet = try await client.nextRequest()
        #expect(plainGet.body == (try parsedJSON(#"{"p":"/x","q":{}}"#)))
        socket.deliverResponse(to: plainGet, data: .null)
        let plainResult = try await plain
        #expect(plainResult == .null)
        await connection.close()
    }

    @Test func onDisconnectWireShapes() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        async let put: Void = connection.onDisconnectPut(path: Path("status/ada"), data: .string("offline"))
        let o = try await client.nextRequest()
        #expect(o.action == "o")
        #expect(o.body == (try parsedJSON(#"{"p":"/status/ada","d":"offline"}"#)))
        socket.deliverResponse(to: o)
        try await put

        async let merge: Void = connection.onDisconnectMerge(path: Path("status"), data: [JSONMember("ada/seen", .int(1))])
        let om = try await client.nextRequest()
        #expect(om.action == "om")
        #expect(om.body == (try parsedJSON(#"{"p":"/status","d":{"ada/seen":1}}"#)))
        socket.deliverResponse(to: om)
        try await merge

        async let cancel: Void = connection.onDisconnectCancel(path: Path("status"))
        let oc = try await client.nextRequest()
        #expect(oc.action == "oc")
        #expect(oc.body == (try parsedJSON(#"{"p":"/status","d":null}"#)))
        socket.deliverResponse(to: oc)
        try await cancel
        // The cancel at /status covers both operations: nothing is left to re-register.
        #expect(await connection.onDisconnectOperations.isEmpty)
        await connection.close()
    }

    @Test func largeIncomingMessageIsReassembled() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        let (socket, _) = try await h.connect()

        let big = JSONValue.string(String(repeating: "ü", count: 40_000))
        let push = RealtimeMessage.push(action: "d", body: .object([JSONMember("p", .string("/blob")), JSONMember("d", big)]))
        let frames = RealtimeFraming.frames(for: push.text)
        #expect(frames.count == 4)
        #expect(frames.first == "3")
        for frame in frames { socket.deliver(frame: frame) }
        #expect(await h.nextEvent() == .overwrite(path: Path("blob"), data: big, tag: nil))
        await connection.close()
    }

    @Test func largeOutgoingMessageIsSplitIntoFrames() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let big = JSONValue.string(String(repeating: "x", count: 40_000))
        async let put: Void = connection.put(path: Path("blob"), data: big, hash: nil)
        var frames: [String] = []
        if let count = await client.nextFrame() { frames.append(count) }
        #expect(frames == ["3"])
        for _ in 0..<3 {
            if let frame = await client.nextFrame() { frames.append(frame) }
        }
        #expect(frames.count == 4)
        #expect(frames.dropFirst().allSatisfy { $0.unicodeScalars.count <= RealtimeFraming.maxFrameCharacters })
        let message = try RealtimeMessage(parsing: frames.dropFirst().joined())
        guard case .request(let id, "p", let body) = message else {
            Issue.record("expected a put, got \(message)")
            return
        }
        #expect(body["d"] == big)
        socket.deliver(.response(id: id, status: "ok", data: .string("")))
        try await put
        await connection.close()
    }

    @Test func keepAliveFramesAreIgnoredWhenReceivedAndSentAfter45QuietSeconds() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        // Received: a bare 0 is an empty count, not a message.
        socket.deliver(frame: "0")
        socket.deliver(.push(action: "d", body: .object([JSONMember("p", .string("a")), JSONMember("d", .int(1))])))
        #expect(await h.nextEvent() == .overwrite(path: Path("a"), data: .int(1), tag: nil))

        // Sent: 30 s pass, a write resets the quiet time, 15 s later nothing is due, 30 s more and it is.
        #expect(await h.clock.waitForSleeps { $0 == [.seconds(45)] })
        h.clock.advance(by: .seconds(30))
        async let put: Void = connection.put(path: Path("a"), data: .int(2), hash: nil)
        let request = try await client.nextRequest()
        h.clock.advance(by: .seconds(15))
        #expect(await h.clock.waitForSleeps { $0 == [.seconds(30)] })
        h.clock.advance(by: .seconds(30))
        #expect(await client.nextFrame() == "0")
        socket.deliverResponse(to: request)
        try await put
        await connection.close()
    }

    @Test func setAuthTokenAuthenticatesAtOnceAndNilSignsOut() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        await connection.setAuthToken("fresh")
        let auth = try await client.nextRequest()
        #expect(auth.action == "auth")
        #expect(auth.body == (try parsedJSON(#"{"cred":"fresh"}"#)))
        socket.deliverResponse(to: auth, data: try parsedJSON(#"{"auth":null,"expires":0}"#))

        await connection.setAuthToken(nil)
        let unauth = try await client.nextRequest()
        #expect(unauth.action == "unauth")
        #expect(unauth.body == .object([]))
        await connection.close()
    }

    @Test func refusedTokenIsReportedAndDropped() async throws {
        var h = try RealtimeHarness(token: "bad-token")
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let auth = try await client.nextRequest()
        socket.deliverResponse(to: auth, status: "invalid_token", data: .string("Could not parse auth token."))
        #expect(await h.nextEvent() == .authRevoked(status: "invalid_token", reason: "Could not parse auth token."))
        #expect(await connection.authToken == nil)

        // The connection carries on unauthenticated.
        async let put: Void = connection.put(path: Path("open"), data: .bool(true), hash: nil)
        let request = try await client.nextRequest()
        #expect(request.action == "p")
        socket.deliverResponse(to: request)
        try await put
        await connection.close()
    }

    @Test func authRevokedPushDropsTheTokenAndReconnectsAtOnce() async throws {
        var h = try RealtimeHarness(token: "expiring")
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        let auth = try await client.nextRequest()
        socket.deliverResponse(to: auth, data: .object([]))

        socket.deliver(.push(action: "ac", body: try parsedJSON(#"{"s":"expired_token","d":"Auth token is expired."}"#)))
        #expect(await h.nextEvent() == .authRevoked(status: "expired_token", reason: "Auth token is expired."))
        #expect(await h.nextEvent() == .disconnected)
        await expectEventually { socket.isClosed }

        // No backoff wait, and the new socket does not authenticate.
        var (next, nextClient) = try await h.connect(session: "s2")
        async let put: Void = connection.put(path: Path("a"), data: .int(1), hash: nil)
        let request = try await nextClient.nextRequest()
        #expect(request.action == "p")
        next.deliverResponse(to: request)
        try await put
        await connection.close()
    }

    @Test("a revoked token is refreshed before the next socket authenticates and listens again")
    func authRevokedPushRefreshesTheToken() async throws {
        let refreshes = Mutex(0)
        var h = try RealtimeHarness(token: "expiring", refresher: {
            refreshes.withLock { $0 += 1 }
            return "fresh"
        })
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        socket.deliverResponse(to: try await client.nextRequest(), data: .object([]))
        async let ack = connection.listen(path: Path("private"), query: nil, tag: nil, hash: "")
        socket.deliverResponse(to: try await client.nextRequest(), data: .object([]))
        _ = try await ack

        socket.deliver(.push(action: "ac", body: try parsedJSON(#"{"s":"expired_token","d":"Auth token is expired."}"#)))
        #expect(await h.nextEvent() == .authRevoked(status: "expired_token", reason: "Auth token is expired."))
        #expect(await h.nextEvent() == .disconnected)
        var (next, nextClient) = try await h.connect(session: "s2")
        let auth = try await nextClient.nextRequest()
        #expect(auth.action == "auth")
        #expect(auth.body == (try parsedJSON(#"{"cred":"fresh"}"#)))
        let listen = try await nextClient.nextRequest()
        #expect(listen.action == "q", "the listen goes out after the fresh auth")
        #expect(refreshes.withLock { $0 } == 1)
        next.deliverResponse(to: auth, data: .object([]))
        next.deliverResponse(to: listen, data: .object([]))
        await connection.close()
    }

    @Test("a token refused on a new socket is refreshed once; a refreshed token refused again leaves the connection signed out")
    func refusedAuthIsRefreshedOnce() async throws {
        let refreshes = Mutex(0)
        var h = try RealtimeHarness(token: "stale", refresher: {
            refreshes.withLock { $0 += 1 }
            return "fresh"
        })
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()
        let auth = try await client.nextRequest()
        #expect(auth.body == (try parsedJSON(#"{"cred":"stale"}"#)))
        socket.deliverResponse(to: auth, status: "expired_token", data: .string("Auth token is expired."))
        #expect(await h.nextEvent() == .authRevoked(status: "expired_token", reason: "Auth token is expired."))
        #expect(await h.nextEvent() == .disconnected)

        var (next, nextClient) = try await h.connect(session: "s2")
        let second = try await nextClient.nextRequest()
        #expect(second.body == (try parsedJSON(#"{"cred":"fresh"}"#)))
        next.deliverResponse(to: second, status: "invalid_token", data: .string("Invalid claim 'aud'."))
        #expect(await h.nextEvent() == .authRevoked(status: "invalid_token", reason: "Invalid claim 'aud'."))
        // No third socket: the connection stays, signed out, and requests go out without auth.
        async let put: Void = connection.put(path: Path("a"), data: .int(1), hash: nil)
        let request = try await nextClient.nextRequest()
        #expect(request.action == "p")
        next.deliverResponse(to: request)
        try await put
        #expect(refreshes.withLock { $0 } == 1)
        #expect(h.factory.attempts.count == 2)
        await connection.close()
    }

    @Test func revokedListensAreReportedAndForgotten() async throws {
        var h = try RealtimeHarness()
        let connection = h.connection
        await connection.open()
        var (socket, client) = try await h.connect()

        let query = Query(order: .key, end: Query.Bound(value: nil, key: Key("m")), limit: .first(10))
        async let plainAck = connection.listen(path: Path("users"), query: nil, tag: nil, hash: "")
        let plain = try await client.nextRequest()
        async let taggedAck = connection.listen(path: Path("users"), query: query, tag: 3, hash: "")
        let tagged = try await client.nextRequest()
        socket.deliverResponse(to: plain, data: .object([]))
        socket.deliverResponse(to: tagged, data: .object([]))
        _ = try await (plainAck, taggedAck)

        socket.deliver(.push(action: "c", body: .object([JSONMember("p", .string("/users")), JSONMember("q", .array([query.wireObject]))])))
        #expect(await h.nextEvent() == .listenRevoked(path: Path("users"), query: query))
        socket.deliver(.push(action: "c", body: .object([JSONMember("p", .string("users"))])))
        #expect(await h.nextEvent() == .listenRevoked(path: Path("users"), query: nil))
        #expect(await connection.listens.isEmpty)
        await connection.close()
    }

    @Test func queueOfWaitingCallsIsCapped() async throws {
        let h = try RealtimeHarness { $0.maxPendingRequests = 2 }
        let connection = h.connection
        // Never opened: calls wait.
        let first = Task { try await connection.put(path: Path("a"), data: .int(1), hash: nil) }
        let second = Task { try await connection.put(path: Path("b"), data: .int(2), hash: nil) }
        await expectEventually { await connection.pending.count == 2 }
        await #expect(throws: RealtimeError.queueFull) {
            try await connection.put(path: Path("c"), data: .int(3), hash: nil)
        }
        await connection.close()
        await #expect(throws: RealtimeError.closed) { try await first.value }
        await #expect(throws: RealtimeError.closed) { try await second.value }
    }
}
