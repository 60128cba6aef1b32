import Foundation
import HearthCore
import HearthDatabase
@testable import HearthServer
import HearthStore
import HearthTestSupport
import HearthWire
import Logging
import NIOCore
import Testing

/// The realtime session driven directly, without sockets: messages in through `receive`, frames
/// out of the outbox.
@Suite("Realtime session state machine")
struct RealtimeSessionTests {
    /// A session on a fresh in-memory namespace, with the outbox read one message at a time.
    final class Harness: Sendable {
        let session: RealtimeSession
        let outbox: RealtimeOutbox
        let namespace: Namespace
        private let reader: MessageReader

        init(rules: String? = nil, outboxLimit: Int = 1 << 20, deliveryLimit: Int = 4096, dev: Bool = false) async throws {
            let configuration = ServerConfiguration(port: 0, adminToken: "owner", dev: dev)
            let registry = NamespaceRegistry(
                factory: MemoryStoreFactory(), clock: { wallClockMillis() }, initialRules: .initial(dev: true), defaultNamespace: "t")
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let controller = DatabaseController(configuration: configuration, registry: registry, logger: logger, auth: nil)
            namespace = try await registry.lease("t").namespace
            if let rules { namespace.replaceRules(try RulesDocument(source: rules)) }
            outbox = RealtimeOutbox(byteLimit: outboxLimit) { _ in }
            session = RealtimeSession(database: controller.service, authenticator: controller.authenticator, namespace: namespace, outbox: outbox, logger: logger, deliveryLimit: deliveryLimit)
            reader = MessageReader(outbox.messages)
        }

        func send(_ id: Int, _ action: String, _ body: String) async throws {
            await session.receive(#"{"t":"d","d":{"r":\#(id),"a":"\#(action)","b":\#(body)}}"#)
        }

        /// The next message the session sent, as JSON.
        func next() async throws -> JSONValue {
            let buffer = try #require(await reader.next())
            _ = outbox.take(buffer)
            return try JSONValue.parse(Array(buffer.readableBytesView))
        }

        func write(_ path: String, _ json: String) async throws {
            let parsed = try Node.parseWrite(try JSONValue.parse(json))
            _ = try await namespace.database.write(WriteRequest(path: Path(path), operation: .set(parsed)))
        }

        func read(_ path: String) async throws -> JSONValue {
            let node = try await namespace.database.store.snapshot { try $0.read(Path(path)) }
            return try JSONValue.parse(node.jsonBytes())
        }
    }

    actor MessageReader {
        var iterator: AsyncStream<ByteBuffer>.AsyncIterator
        init(_ stream: AsyncStream<ByteBuffer>) { iterator = stream.makeAsyncIterator() }
        func next() async -> ByteBuffer? {
            var it = iterator
            let value = await it.next(isolation: self)
            iterator = it
            return value
        }
    }

    func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    @Test("a listen sends its data, then ok, then changes; unlisten stops them")
    func listenOrder() async throws {
        let h = try await Harness()
        try await h.write("a/b", #"{"x":1}"#)
        try await h.send(1, "q", #"{"p":"/a","h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":{"b":{"x":1}}}}}"#))
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{}}}}"#))
        try await h.write("a/b/x", "2")
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a/b/x","d":2}}}"#))
        try await h.send(2, "n", #"{"p":"/a"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":""}}}"#))
        #expect(await h.session.listenCount == 0)
        #expect(h.namespace.hub.listenerCount == 0)
    }

    @Test("an unlisten of a query that is not listened stops nothing; a query spelled differently still matches its listen")
    func unlistenMatchesExactly() async throws {
        let h = try await Harness(rules: #"{"rules":{".read":true,".write":true,"items":{".indexOn":["h"]}}}"#)
        try await h.send(1, "q", #"{"p":"/items","h":""}"#)
        _ = try await h.next()
        _ = try await h.next()
        try await h.send(2, "q", #"{"p":"/items","q":{"i":"h","l":1,"vf":"l"},"t":1,"h":""}"#)
        _ = try await h.next()
        _ = try await h.next()
        // Never listened: the plain listen on /items must keep receiving (it used to be dropped).
        try await h.send(3, "n", #"{"p":"/items","q":{"i":"h","l":5,"vf":"l"},"t":9}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":3,"b":{"s":"ok","d":""}}}"#))
        #expect(await h.session.listenCount == 2)
        // The tagged query again, members in another order and the limit as 1.0: it stops.
        try await h.send(4, "n", #"{"p":"/items","q":{"vf":"l","l":1.0,"i":"h"},"t":1}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":4,"b":{"s":"ok","d":""}}}"#))
        #expect(await h.session.listenCount == 1)
        try await h.write("items/c", #"{"h":3}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"items/c","d":{"h":3}}}}"#))
    }

    @Test("a client's own write reaches its listen before the write's ok")
    func ownWriteBeforeOk() async throws {
        let h = try await Harness()
        try await h.send(1, "q", #"{"p":"/a","h":""}"#)
        _ = try await h.next()
        _ = try await h.next()
        for id in 2...20 {
            try await h.send(id, "p", #"{"p":"/a/x","d":\#(id)}"#)
            #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a/x","d":\#(id)}}}"#))
            #expect(try await h.next() == json(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":""}}}"#))
        }
    }

    /// The SDK drops its local copy of a write on the `ok`, so a limited query's new window must be out by then (the
    /// differential soak saw a written child leave the window and come back when it was sent afterwards).
    @Test("a client's own write reaches its query listens, re-run, before the write's ok")
    func ownWriteReachesQueriesBeforeOk() async throws {
        let h = try await Harness()
        let filler = (0..<300).map { #""z\#($0)":\#($0)"# }.joined(separator: ",")
        try await h.write("items", "{\(filler)}")
        try await h.send(1, "q", #"{"p":"/items","q":{"i":".key","l":3,"vf":"l"},"t":7,"h":""}"#)
        _ = try await h.next()
        _ = try await h.next()
        for id in 2...21 {
            try await h.send(id, "p", #"{"p":"/items/a\#(100 - id)","d":\#(id)}"#)
            let push = try await h.next()
            #expect(push["d"]?["a"] == .string("d"))
            #expect(push["d"]?["b"]?["t"] == .int(7))
            #expect(push["d"]?["b"]?["d"]?["a\(100 - id)"] == .int(Int64(id)), "the window holds the write: \(push)")
            #expect(try await h.next() == json(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":""}}}"#))
        }
    }

    @Test("a second identical listen gets the current data, then ok, with still one hub listener that keeps delivering")
    func duplicateListen() async throws {
        let h = try await Harness()
        try await h.write("a", #"{"x":1}"#)
        try await h.send(1, "q", #"{"p":"/a","h":""}"#)
        _ = try await h.next()
        _ = try await h.next()
        try await h.send(2, "q", #"{"p":"/a","h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":{"x":1}}}}"#))
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{}}}}"#))
        #expect(h.namespace.hub.listenerCount == 1)
        #expect(await h.session.listenCount == 1)
        try await h.write("a/x", "2")
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a/x","d":2}}}"#))
    }

    @Test("a put with a stale hash is refused as datastale and writes nothing")
    func transactionHash() async throws {
        let h = try await Harness()
        try await h.write("c", "4")
        try await h.send(1, "p", #"{"p":"/c","d":5,"h":"wrong"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"datastale","d":"Transaction hash does not match"}}}"#))
        #expect(try await h.read("c") == .int(4))
        try await h.send(2, "p", #"{"p":"/c","d":5,"h":"eVih19a6ZDz3NL32uVBtg9KSgQY="}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":""}}}"#))
        #expect(try await h.read("c") == .int(5))
    }

    @Test("onDisconnect operations run in registration order, cancelled ones do not")
    func onDisconnectOrder() async throws {
        let h = try await Harness()
        try await h.send(1, "o", #"{"p":"/s","d":"first"}"#)
        try await h.send(2, "om", #"{"p":"/","d":{"s":"second","t/u":1}}"#)
        try await h.send(3, "o", #"{"p":"/gone/x","d":1}"#)
        try await h.send(4, "oc", #"{"p":"/gone","d":null}"#)
        for id in 1...4 { #expect(try await h.next() == json(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":""}}}"#)) }
        #expect(try await h.read("s") == .null)
        await h.session.disconnected()
        #expect(try await h.read("") == json(#"{"s":"second","t":{"u":1}}"#))
    }

    /// An empty `m` or `om` under deny-all rules used to stop the server (the rules check had nothing to grant):
    /// it is a no-op. A priority-only `om` is checked like the `m` it stands for.
    @Test func emptyUpdatesAreNoOpsAndPriorityOnlyOnDisconnectIsChecked() async throws {
        let h = try await Harness(rules: #"{"rules":{"pp":{".write":true,".validate":"newData.getPriority() == null"}}}"#)
        try await h.send(0, "p", #"{"p":"/pp","d":{"v":1}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":0,"b":{"s":"ok","d":""}}}"#))
        try await h.send(1, "m", #"{"p":"/a","d":{}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#))
        try await h.send(2, "om", #"{"p":"/a","d":{}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":""}}}"#))
        try await h.send(3, "m", #"{"p":"/pp","d":{"v":2,".priority":5}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":3,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
        try await h.send(4, "om", #"{"p":"/pp","d":{".priority":5}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":4,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
        try await h.send(5, "om", #"{"p":"/pp","d":{"v":3}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":5,"b":{"s":"ok","d":""}}}"#))
        await h.session.disconnected()
        #expect(try await h.read("pp") == json(#"{"v":3}"#))
    }

    /// A one-off `g` with an order but no range or limit reads the whole location, and the rules see its order
    /// (the same read over REST is allowed; the socket used to drop the query and deny it).
    @Test func aGetWithAnOrderOnlyQueryIsCheckedWithItsOrder() async throws {
        let h = try await Harness(rules: #"{"rules":{"ordered":{".indexOn":["owner"],".read":"query.orderByChild == 'owner'"}}}"#)
        try await h.write("ordered/a", #"{"owner":"x"}"#)
        try await h.send(1, "g", #"{"p":"/ordered","q":{"i":"owner"}}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{"a":{"owner":"x"}}}}}"#))
        try await h.send(2, "g", #"{"p":"/ordered"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
    }

    @Test("a signed-out client may not listen where the rules require a user")
    func rulesDenyListen() async throws {
        let h = try await Harness(rules: #"{"rules":{"p":{".read":"auth != null"}}}"#)
        try await h.send(1, "q", #"{"p":"/p","h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
        #expect(h.namespace.hub.listenerCount == 0)
    }

    @Test("ping gets a pong with a null payload; unknown actions fail without closing")
    func pingAndUnknown() async throws {
        let h = try await Harness()
        await h.session.receive(#"{"t":"c","d":{"t":"p","d":{}}}"#)
        #expect(try await h.next() == json(#"{"t":"c","d":{"t":"o","d":null}}"#))
        try await h.send(1, "zz", "{}")
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"failed","d":"Unknown action zz"}}}"#))
        await h.session.receive("not json")
        let error = try await h.next()
        #expect(error["d"]?["t"] == .string("e"))
    }

    @Test("a client that does not read is cut off once its outbox passes the byte budget")
    func slowClient() async throws {
        let h = try await Harness(outboxLimit: 4096)
        try await h.send(1, "q", #"{"p":"/f","h":""}"#)
        for i in 0..<10 { try await h.write("f/\(i)", "\"" + String(repeating: "z", count: 1000) + "\"") }
        // Give the delivery pump time to forward the pushes.
        for _ in 0..<200 where !h.outbox.isOverflowing { try await Task.sleep(for: .milliseconds(10)) }
        #expect(h.outbox.isOverflowing)
        #expect(h.outbox.isClosed)
    }

    @Test("one message larger than the byte budget is delivered when nothing else is queued")
    func oneLargeMessage() async throws {
        let h = try await Harness(outboxLimit: 4096)
        let big = String(repeating: "z", count: 10_000)
        try await h.write("big", "\"" + big + "\"")
        try await h.send(1, "q", #"{"p":"/big","h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"big","d":"\#(big)"}}}"#))
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{}}}}"#))
        #expect(!h.outbox.isOverflowing)
        #expect(!h.outbox.isClosed)
    }

    /// It used to answer `datastale` (issue 30 §6: with `ok` for a right hash, that told a writer whether
    /// its guess of a value it may not read was right). Transactions need read access, as in Firebase.
    @Test("a stale transaction by a writer who may not read there is denied, and writes nothing")
    func staleTransactionWithoutRead() async throws {
        let h = try await Harness(rules: #"{"rules":{"lim":{"$k":{".write":true}}}}"#)
        try await h.send(1, "p", #"{"p":"/lim/a","d":5}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#))
        try await h.send(2, "p", #"{"p":"/lim/a","d":6,"h":"bogus"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
        #expect(try await h.read("lim/a") == .int(5))
    }

    @Test("an ID token whose exp has passed is refused as expired_token, not answered ok and revoked a moment later")
    func expiredToken() async throws {
        let h = try await Harness(rules: #"{"rules":{"p":{"$uid":{".read":"auth != null && auth.uid == $uid"}}}}"#, dev: true)
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let exp = wallClockMillis() / 1000 - 10
        let token = part(#"{"alg":"none","typ":"JWT"}"#) + "." + part(#"{"sub":"carol","user_id":"carol","exp":\#(exp)}"#) + "."
        try await h.send(1, "auth", #"{"cred":"\#(token)"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"expired_token","d":"Auth token is expired."}}}"#))
        // Signed out, so the rules refuse carol's data, and nothing else follows.
        try await h.send(2, "q", #"{"p":"/p/carol","h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
    }

    @Test("outgoing messages over 16,384 bytes are split and reassemble")
    func outboxSplits() throws {
        let text = #"{"t":"d","d":{"a":"d","b":{"p":"x","d":""# + String(repeating: "é", count: 20000) + #""}}}"#
        let frames = RealtimeOutbox.frames(ByteBuffer(string: text))
        #expect(frames.count == 3)  // the count, then two chunks of at most 16,384 characters
        var assembler = RealtimeFrameAssembler()
        var result: String?
        for f in frames {
            #expect(f.readableBytes <= 4 * RealtimeFraming.maxFrameCharacters)
            result = try assembler.receive(String(buffer: f))
        }
        #expect(result == text)
        #expect(RealtimeOutbox.frames(ByteBuffer(string: "{}")).count == 1)
    }
}

@Suite("Realtime wire DTOs")
struct RealtimeWireTests {
    @Test("wire query objects round-trip, with absent inclusiveness meaning inclusive")
    func queryRoundTrip() throws {
        let json = try JSONValue.parse(#"{"sp":2.5,"sin":true,"ep":5,"ein":true,"l":2,"vf":"l","i":"height"}"#)
        let query = try Query(wireObject: json)
        #expect(query.order == .child(Path("height")))
        #expect(query.start == Query.Bound(value: .double(2.5)))
        #expect(query.limit == .first(2))
        #expect(try Query(wireObject: query.wireObject) == query)
        let old = try Query(wireObject: try JSONValue.parse(#"{"sp":"a","ep":"c","i":".key"}"#))
        #expect(old.start?.strict == false && old.end?.strict == false)
        let after = try Query(wireObject: try JSONValue.parse(#"{"sp":3,"sn":"[MAX_NAME]","sin":true,"i":".value"}"#))
        #expect(after.start == Query.Bound(value: .int(3), key: nil, strict: true))
        #expect(throws: QueryError.self) { try Query(wireObject: try JSONValue.parse(#"{"l":-1}"#)) }
        #expect(throws: QueryError.self) { try Query(wireObject: try JSONValue.parse(#"{"sp":{"a":1}}"#)) }
    }

    @Test("messages parse into their kinds and print back")
    func messages() throws {
        let request = try RealtimeMessage(parsing: #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/a","h":""}}}"#)
        guard case .request(3, "q", let body) = request else { Issue.record("not a request: \(request)"); return }
        #expect(body["p"] == .string("/a"))
        let response = try RealtimeMessage(parsing: #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{}}}}"#)
        #expect(response == .response(id: 3, status: "ok", data: .object([])))
        #expect(try RealtimeMessage(parsing: response.text) == response)
        #expect(try RealtimeMessage(parsing: #"{"t":"d","d":{"error":"boom"}}"#) == .error("boom"))
        #expect(throws: RealtimeFramingError.self) { try RealtimeMessage(parsing: #"{"t":"x","d":1}"#) }
        #expect(throws: RealtimeFramingError.self) { try RealtimeMessage(parsing: #"{"t":"d","d":{"r":"1","a":"q"}}"#) }
        let push = RealtimeMessage.dataPush(path: Path("a/b"), node: .leaf(.int(1), priority: .int(2)), tag: 4)
        #expect(String(decoding: push, as: UTF8.self) == #"{"t":"d","d":{"a":"d","b":{"p":"a/b","d":{".priority":2,".value":1},"t":4}}}"#)
    }

    @Test("the assembler ignores keep-alives, joins chunks and bounds sizes")
    func assembler() throws {
        var a = RealtimeFrameAssembler(maxMessageBytes: 64 * 1024)
        #expect(try a.receive("0") == nil)
        #expect(a.isAssembling == false)
        #expect(try a.receive("2") == nil)
        #expect(try a.receive(#"{"t":"c","#) == nil)
        #expect(try a.receive(#""d":{}}"#) == #"{"t":"c","d":{}}"#)
        #expect(throws: RealtimeFramingError.self) { try a.receive("-1") }
        #expect(throws: RealtimeFramingError.self) { try a.receive("99999") }
        var small = RealtimeFrameAssembler(maxMessageBytes: 10)
        #expect(throws: RealtimeFramingError.self) { try small.receive(String(repeating: "x", count: 11)) }
        // Frames are counted in UTF-16 code units, as the JS SDK counts them: an emoji is two.
        let emoji = String(repeating: "😀", count: 16000)
        let split = RealtimeFraming.frames(for: emoji)
        #expect(split.first == "2")
        #expect(split.dropFirst().allSatisfy { $0.utf16.count <= RealtimeFraming.maxFrameCharacters })
        #expect(split.dropFirst().joined() == emoji)
        // An odd split point would cut a surrogate pair: the chunk ends before it instead.
        let shifted = "x" + emoji
        let shiftedSplit = RealtimeFraming.frames(for: shifted)
        #expect(shiftedSplit.first == "2")
        #expect(shiftedSplit[1].utf16.count == RealtimeFraming.maxFrameCharacters - 1)
        #expect(shiftedSplit.dropFirst().joined() == shifted)
        // Exactly at the limit: one frame.
        let atLimit = String(repeating: "é", count: RealtimeFraming.maxFrameCharacters)
        #expect(RealtimeFraming.frames(for: atLimit) == [atLimit])
        #expect(RealtimeFraming.frames(for: atLimit + "a").count == 3)
    }
}
