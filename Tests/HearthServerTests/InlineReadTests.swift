import AsyncHTTPClient
import Foundation
import HTTPTypes
import HearthSQLite
import HearthStore
import HearthTesting
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

@testable import HearthServer

/// Small reads answered on the event loop must be indistinguishable on the wire from the same
/// reads answered by Hummingbird's responder, and must never overtake an earlier response.
@Suite("Reads answered on the event loop")
struct InlineReadTests {
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var headers: [String]
        var body: String
        var description: String { "\(status) \(headers) \(body)" }
    }

    /// Status, headers except `Date` (in order) and body.
    static func fetch(_ port: Int, _ target: String, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(target)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return Answer(
            status: Int(response.status.code),
            headers: response.headers.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }.map { "\($0.name.lowercased()): \($0.value)" },
            body: String(buffer: body))
    }

    static func put(_ port: Int, _ target: String, _ json: String) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(target)")
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer owner")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        #expect(response.status == .ok, "PUT \(target)")
    }

    /// Rules, a small public tree, a private one and one larger than an inline read may be.
    static func seed(_ port: Int) async throws {
        try await put(port, "/.settings/rules.json", #"{"rules":{"public":{".read":true},"private":{".read":"auth != null"},"big":{".read":true}}}"#)
        try await put(port, "/public.json", #"{"a":1,"b":{"c":"x","d":[1,2]},"p":{".value":2,".priority":5},"u":"\u00e9\ud83d\ude00"}"#)
        try await put(port, "/private.json", #"{"k":1}"#)
        let big = (0..<(DatabaseController.inlineRowLimit + 10)).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        try await put(port, "/big.json", "{\(big)}")
    }

    static let admin = [("Authorization", "Bearer owner")]

    /// Requests of every kind the database answers with GET: plain reads, print and format options,
    /// ETags, denials, bad tokens, bad paths and namespaces, and reads that must go the slow way.
    static func requests(etag: String) -> [(String, [(String, String)])] {
        [
            ("/public.json", []),
            ("/public/a.json", []),
            ("/public/b/d.json", []),
            ("/public.json?print=pretty", []),
            ("/public.json?print=silent", []),
            ("/public.json?format=export", []),
            ("/public/u.json", []),
            ("/public.json", [("X-Firebase-ETag", "true")]),
            ("/public.json", [("If-None-Match", etag)]),
            ("/public.json", [("If-None-Match", "\"nope\"")]),
            ("/private.json", []),
            ("/private.json?print=pretty", []),
            ("/private.json", admin),
            ("/private.json?auth=owner", []),
            ("/private.json", [("Authorization", "Bearer not-a-token")]),
            ("/private.json?access_token=owner", []),
            ("/missing.json", admin),
            ("/.json", admin),
            ("/big.json", []),
            ("/big/k3.json", []),
            ("/bad%5B.json", admin),
            ("/public.json?ns=bad!", []),
            ("/public.json?ns=other", admin),
            ("/public.json?ns=other", admin),
            ("/.info/connected.json", admin),
            ("/public.json?orderBy=%22$key%22&limitToFirst=1", []),
            ("/public/p/.priority.json", []),
            ("/.settings/rules.json", admin),
            ("/.inspect/databases.json", admin),
            ("/public.json", [("Accept", "application/json, text/plain")]),
            ("/public", []),
        ]
    }

    @Test(arguments: ["memory", "sqlite"])
    func inlineAnswersEqualTheResponders(backend: String) async throws {
        func stores() -> any StoreFactory {
            if backend == "memory" { return MemoryStoreFactory() }
            let folder = NSTemporaryDirectory() + "hearth-inline-" + UUID().uuidString
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return SQLiteStoreFactory(folder: folder, durability: .normal)
        }
        let inline = LiveServer(stores: stores(), dev: false)
        let plain = LiveServer(stores: stores(), dev: false, inlineAnswers: false)
        try await Self.withBoth(inline, plain) { inlinePort, plainPort in
            try await Self.compare(inline: inline, inlinePort: inlinePort, plain: plain, plainPort: plainPort)
        }
    }

    /// Starts both servers, runs `body` with their ports, and stops both however it ends.
    static func withBoth(_ inline: LiveServer, _ plain: LiveServer, _ body: (Int, Int) async throws -> Void) async throws {
        let inlinePort = try await inline.start()
        let plainPort: Int
        do {
            plainPort = try await plain.start()
        } catch {
            await inline.stop()
            throw error
        }
        do {
            try await body(inlinePort, plainPort)
        } catch {
            await inline.stop()
            await plain.stop()
            throw error
        }
        await inline.stop()
        await plain.stop()
    }

    static func compare(inline: LiveServer, inlinePort: Int, plain: LiveServer, plainPort: Int) async throws {
        try await seed(inlinePort)
        try await seed(plainPort)
        let etagAnswer = try await fetch(plainPort, "/public.json", headers: [("X-Firebase-ETag", "true")])
        let etag = try #require(etagAnswer.headers.first { $0.hasPrefix("etag: ") }).dropFirst(6)
        let before = await inline.requestsAnsweredInline
        for (target, headers) in requests(etag: String(etag)) {
            let expected = try await fetch(plainPort, target, headers: headers)
            let actual = try await fetch(inlinePort, target, headers: headers)
            #expect(actual == expected, "GET \(target) \(headers)")
        }
        // All but 9: the root and /big (over the row limit), both reads of namespace `other` (it does
        // not exist: the asynchronous path answers 404, after looking for one created meanwhile), the
        // query, `.priority`, `.settings`, `.inspect` and the path without `.json`.
        // Errors found before the read (bad path, namespace name or token) and denials are answered inline.
        let answered = await inline.requestsAnsweredInline - before
        #expect(answered == requests(etag: "").count - 9)
        #expect(await plain.requestsAnsweredInline == 0)
    }

    /// A write and the read after it on one keep-alive connection: the read must see the write.
    @Test func aReadAfterAWriteOnOneConnectionSeesIt() async throws {
        try await withLiveServer { port in
            for i in 0..<50 {
                try await Self.put(port, "/n.json", "\(i)")
                let answer = try await Self.fetch(port, "/n.json", headers: Self.admin)
                #expect(answer.body == "\(i)")
            }
        }
    }

    // MARK: - The handler alone

    static func head(_ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: "http", authority: "h", path: path, headerFields: headers))
    }

    /// The promise of the last `/later` request, completed by the test.
    final class Pending: @unchecked Sendable {
        var promise: EventLoopPromise<InlineReply?>?
    }

    static func embedded(_ pending: Pending = Pending()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            InlineResponseHandler { head in
                switch head.path {
                case "/fast": return .reply(InlineReply(status: .ok, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "quick")))
                case "/echo":
                    return .afterBody { body, loop in
                        let text = String(buffer: body)
                        return loop.makeSucceededFuture(
                            text == "pass" ? nil : InlineReply(status: .ok, headers: [:], body: ByteBuffer(string: "got " + text)))
                    }
                case "/later":
                    return .afterBody { _, loop in
                        let promise = loop.makePromise(of: InlineReply?.self)
                        pending.promise = promise
                        return promise.futureResult
                    }
                default: return nil
                }
            })
        return channel
    }

    /// Reads the parts of one response written inline (after the deferred flush ran).
    static func response(from channel: EmbeddedChannel) throws -> (HTTPResponse, String)? {
        channel.embeddedEventLoop.run()
        guard let first = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        guard case .head(let head) = first else { Issue.record("expected a head, got \(first)"); return nil }
        var body = ""
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .body(let buffer): body += String(buffer: buffer)
            case .end: return (head, body)
            case .head: Issue.record("second head")
            }
        }
        Issue.record("no end")
        return nil
    }

    @Test func answersWithLengthAndDateAndPassesOthersOn() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/fast"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        let (head, body) = try #require(try Self.response(from: channel))
        #expect(head.status == .ok)
        #expect(head.headerFields[.contentLength] == "5")
        #expect(head.headerFields[.contentType] == "text/plain")
        #expect(head.headerFields[.date]?.hasSuffix(" GMT") == true)
        #expect(body == "quick")

        try channel.writeInbound(Self.head("/slow"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        guard case .head(let forwarded)? = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("the slow request was not passed on")
            return
        }
        #expect(forwarded.path == "/slow")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        _ = try channel.finish()
    }

    @Test func neverOvertakesAResponseStillBeingWritten() throws {
        let channel = try Self.embedded()
        // Pipelined: a slow request, then a fast one, before the slow one is answered.
        try channel.writeInbound(Self.head("/slow"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.head("/fast"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        var forwarded: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let h) = part { forwarded.append(h.path ?? "") }
        }
        #expect(forwarded == ["/slow", "/fast"])
        #expect(try Self.response(from: channel) == nil)
        // Downstream answers both; after that a fast request is answered inline again.
        for _ in 0..<2 {
            channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
            channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        try channel.writeInbound(Self.head("/fast"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(try Self.response(from: channel)?.1 == "quick")
        _ = try channel.finish()
    }

    @Test func requestsThatCloseTheConnectionAreLeftToHummingbird() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/fast", headers: [.connection: "close"]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        guard case .head? = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("not passed on")
            return
        }
        _ = try channel.finish()
    }

    @Test func aBodyOnAnInlineRequestIsDropped() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/fast"))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "ignored")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(try Self.response(from: channel)?.1 == "quick")
        _ = try channel.finish()
    }

    @Test func aBodyIsReadBeforeAnswering() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/echo", method: .post, headers: [.contentLength: "5"]))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "he")))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "llo")))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(try Self.response(from: channel)?.1 == "got hello")
        _ = try channel.finish()
    }

    /// Every part of a request passed on, as paths and body texts.
    static func forwarded(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            switch part {
            case .head(let h): parts.append("head \(h.path ?? "")")
            case .body(let b): parts.append("body \(b.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    @Test func aDeclinedRequestIsPassedOnWhole() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/echo", method: .post, headers: [.contentLength: "4"]))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "pa")))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "ss")))
        #expect(try Self.forwarded(channel) == [])
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.forwarded(channel) == ["head /echo", "body 4", "end"])
        #expect(try Self.response(from: channel) == nil)
        // Its response is still to come, so the next request waits for it too.
        try channel.writeInbound(Self.head("/fast"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.forwarded(channel) == ["head /fast", "end"])
        _ = try channel.finish()
    }

    @Test func requestsReadWhileAnAnswerIsAwaitedWaitForIt() throws {
        let pending = Pending()
        let channel = try Self.embedded(pending)
        try channel.writeInbound(Self.head("/later", method: .post, headers: [.contentLength: "0"]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        // Pipelined behind it: one request answered here, one for downstream.
        for path in ["/fast", "/slow"] {
            try channel.writeInbound(Self.head(path))
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        #expect(try Self.forwarded(channel) == [])
        #expect(try Self.response(from: channel) == nil)
        try #require(pending.promise).succeed(InlineReply(status: .created, headers: [:], body: ByteBuffer(string: "later")))
        let first = try #require(try Self.response(from: channel))
        #expect(first.0.status == .created)
        #expect(first.1 == "later")
        #expect(try Self.response(from: channel)?.1 == "quick")
        #expect(try Self.forwarded(channel) == ["head /slow", "end"])
        _ = try channel.finish()
    }

    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    @Test func theSocketIsNotReadWhileAnAnswerIsAwaited() throws {
        let pending = Pending()
        let channel = try Self.embedded(pending)
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        try channel.writeInbound(Self.head("/later", method: .post, headers: [.contentLength: "0"]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.read()
        channel.read()
        #expect(counter.reads == 0)
        try #require(pending.promise).succeed(nil)
        #expect(counter.reads == 1)
        channel.read()
        #expect(counter.reads == 2)
        _ = try channel.finish()
    }

    @Test func aClosedConnectionGetsNoLateAnswer() throws {
        let pending = Pending()
        let channel = try Self.embedded(pending)
        try channel.writeInbound(Self.head("/later", method: .post, headers: [.contentLength: "0"]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        _ = try channel.finish()
        try #require(pending.promise).succeed(InlineReply(status: .ok, headers: [:], body: ByteBuffer(string: "late")))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    @Test func aFailedAnswerPassesTheRequestOn() throws {
        let pending = Pending()
        let channel = try Self.embedded(pending)
        try channel.writeInbound(Self.head("/later", method: .post, headers: [.contentLength: "2"]))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{}")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        struct Gone: Error {}
        try #require(pending.promise).fail(Gone())
        #expect(try Self.forwarded(channel) == ["head /later", "body 2", "end"])
        #expect(try Self.response(from: channel) == nil)
        _ = try channel.finish()
    }

    @Test(arguments: [
        HTTPFields(),  // no declared length (chunked)
        [.contentLength: String(InlineResponseHandler.bodyLimit + 1)],
        [.contentLength: "4", .expect: "100-continue"],
    ])
    func bodiesItCannotBoundArePassedOnAtOnce(headers: HTTPFields) throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/echo", method: .post, headers: headers))
        #expect(try Self.forwarded(channel) == ["head /echo"])
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "data")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.forwarded(channel) == ["body 4", "end"])
        _ = try channel.finish()
    }

    @Test func moreBodyThanTheHeadDeclaredIsPassedOn() throws {
        let channel = try Self.embedded()
        try channel.writeInbound(Self.head("/echo", method: .post, headers: [.contentLength: "3"]))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "abc")))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x61, count: InlineResponseHandler.bodyLimit)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.forwarded(channel) == ["head /echo", "body 3", "body \(InlineResponseHandler.bodyLimit)", "end"])
        #expect(try Self.response(from: channel) == nil)
        _ = try channel.finish()
    }

    @Test func datesAreIMFFixdates() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_795_405_506) == "Mon, 23 Nov 2026 03:45:06 GMT")
    }
}
