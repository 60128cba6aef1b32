import HTTPTypes
import HearthCore
import HearthDatabase
@testable import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 30 §6: write access must not show what only read access may see — not through the echo of a
/// server value, nor through whether a conditional write (if-match, a transaction's hash) applies.
@Suite("Writes reveal nothing a writer may not read")
struct WriteDisclosureTests {
    static let rules = #"{"rules":{"wo":{".write":true,".read":false},"rw":{".write":true,".read":true}}}"#
    static let anonymous: HTTPFields = [:]
    static let etag = HTTPField.Name("ETag")!

    static func ifMatch(_ etag: String) -> HTTPFields { [HTTPField.Name("if-match")!: etag] }

    static func setUp(_ client: some TestClientProtocol) async throws {
        #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
        for path in ["/wo", "/rw"] {
            #expect(try await client.send(.put, "\(path).json", #"{"n":41,"pw":"hunter2"}"#).0 == .ok)
        }
    }

    @Test("an increment's result is echoed only where the caller may read it")
    func incrementEchoes() async throws {
        try await withRouterClient { client in
            try await Self.setUp(client)
            let increment = #"{".sv":{"increment":0}}"#
            // Write-only: the write happens, the echo does not show the stored value.
            let (status, body, _) = try await client.send(.put, "/wo/n.json", increment, headers: Self.anonymous)
            #expect(status == .ok)
            #expect(body == "null")
            #expect(try await client.send(.get, "/wo/n.json").1 == "41")
            // Nested, beside a timestamp (which depends on nothing stored, so it is echoed) and a plain value.
            let mixed = #"{"n":{".sv":{"increment":1}},"t":{".sv":"timestamp"},"x":"sent",".priority":{".sv":{"increment":0}}}"#
            let (mixedStatus, mixedBody, _) = try await client.send(.put, "/wo.json", mixed, headers: Self.anonymous)
            #expect(mixedStatus == .ok)
            let echoed = try JSONValue.parse(mixedBody)
            #expect(echoed["n"] == nil && echoed[".priority"] == nil)
            #expect(echoed["x"] == .string("sent"))
            guard case .int(let t)? = echoed["t"] else { Issue.record("no timestamp in \(mixedBody)"); return }
            #expect(try await client.send(.get, "/wo.json").1 == #"{"n":42,"t":\#(t),"x":"sent"}"#)
            // PATCH echoes each entry the same way.
            let (patchStatus, patchBody, _) = try await client.send(.patch, "/wo.json", #"{"n":\#(increment),"y":1}"#, headers: Self.anonymous)
            #expect(patchStatus == .ok)
            #expect(try JSONValue.parse(patchBody) == JSONValue.parse(#"{"n":null,"y":1}"#))
            // Where the caller may read, and for the admin, the resolved value as before.
            #expect(try await client.send(.put, "/rw/n.json", increment, headers: Self.anonymous).1 == "41")
            #expect(try await client.send(.patch, "/rw.json", #"{"n":\#(increment)}"#, headers: Self.anonymous).1 == #"{"n":41}"#)
            #expect(try await client.send(.put, "/wo/n.json", increment).1 == "42")
        }
    }

    @Test("a conditional write needs read access, whether its ETag matches or not")
    func conditionalWritesNeedRead() async throws {
        try await withRouterClient { client in
            try await Self.setUp(client)
            let (_, _, headers) = try await client.send(.get, "/wo.json", headers: [HTTPField.Name("X-Firebase-ETag")!: "true", .authorization: "Bearer owner"])
            let right = try #require(headers[Self.etag])
            // Right and wrong guesses get the same answer, and neither writes.
            for etag in [right, "bogus", "null_etag"] {
                for method in [HTTPRequest.Method.put, .delete] {
                    let (status, body, answered) = try await client.send(
                        method, "/wo.json", method == .put ? "1" : nil, headers: Self.ifMatch(etag))
                    #expect(status == .unauthorized, "\(method) \(etag)")
                    #expect(body == #"{"error":"Permission denied"}"#)
                    #expect(answered[Self.etag] == nil)
                }
            }
            #expect(try await client.send(.put, "/wo/.priority.json", "1", headers: Self.ifMatch(right)).0 == .unauthorized)
            #expect(try await client.send(.get, "/wo.json").1 == #"{"n":41,"pw":"hunter2"}"#)
            // Plain writes stay allowed; a reader's conditional writes work as Firebase's do.
            #expect(try await client.send(.put, "/wo/n.json", "1", headers: Self.anonymous).0 == .ok)
            let (_, _, rwHeaders) = try await client.send(.get, "/rw.json", headers: [HTTPField.Name("X-Firebase-ETag")!: "true", .authorization: "Bearer owner"])
            #expect(try await client.send(.put, "/rw.json", "2", headers: Self.ifMatch(try #require(rwHeaders[Self.etag]))).0 == .ok)
            #expect(try await client.send(.put, "/rw.json", "3", headers: Self.ifMatch("bogus")).0 == .preconditionFailed)
            // The admin is not bound by rules.
            var admin = Self.ifMatch("bogus")
            admin[.authorization] = "Bearer owner"
            #expect(try await client.send(.put, "/wo.json", "4", headers: admin).0 == .preconditionFailed)
        }
    }
}

extension RealtimeSessionTests {
    @Test("a transaction (`p` with `h`) where the caller may write but not read is denied, matching or not")
    func transactionsNeedRead() async throws {
        let h = try await Harness(rules: WriteDisclosureTests.rules)
        try await h.write("wo", #"{"n":41}"#)
        try await h.write("rw", #"{"n":41}"#)
        let right = try await h.namespace.database.store.snapshot { try $0.read(Path("wo")) }.etag
        for (id, hash) in [(1, right), (2, "bogus"), (3, "")] {
            try await h.send(id, "p", #"{"p":"/wo","d":5,"h":"\#(hash)"}"#)
            #expect(try await h.next() == json(#"{"t":"d","d":{"r":\#(id),"b":{"s":"permission_denied","d":"Permission denied"}}}"#))
        }
        #expect(try await h.read("wo") == json(#"{"n":41}"#))
        // Without `h` the write-only caller may write; a reader's transaction answers datastale or ok.
        try await h.send(4, "p", #"{"p":"/wo/n","d":5}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":4,"b":{"s":"ok","d":""}}}"#))
        try await h.send(5, "p", #"{"p":"/rw","d":5,"h":"bogus"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":5,"b":{"s":"datastale","d":"Transaction hash does not match"}}}"#))
        let rwHash = try await h.namespace.database.store.snapshot { try $0.read(Path("rw")) }.etag
        try await h.send(6, "p", #"{"p":"/rw","d":5,"h":"\#(rwHash)"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":6,"b":{"s":"ok","d":""}}}"#))
        #expect(try await h.read("rw") == json("5"))
    }
}
