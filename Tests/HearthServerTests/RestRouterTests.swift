import HTTPTypes
import HearthDatabase
import HearthServer
import HummingbirdTesting
import Testing

@Suite("REST over the router")
struct RestRouterTests {
    @Test func putGetDeleteRoundTrip() async throws {
        try await withRouterClient { c in
            let put = try await c.send(.put, "/u/jack.json", #"{"name":"Jack","age":30,"tags":["a","b"]}"#)
            #expect(put.0 == .ok)
            #expect(put.1 == #"{"age":30,"name":"Jack","tags":["a","b"]}"#)
            #expect(put.2[.contentType] == "application/json; charset=utf-8")
            #expect(try await c.send(.get, "/u/jack/tags.json").1 == #"["a","b"]"#)
            #expect(try await c.send(.get, "/u/jack.json?shallow=true").1 == #"{"age":true,"name":true,"tags":true}"#)
            #expect(try await c.send(.delete, "/u/jack.json").1 == "null")
            #expect(try await c.send(.get, "/u.json").1 == "null")
        }
    }

    @Test func deniesEverythingButAdminUntilRulesAreEnforced() async throws {
        try await withRouterClient { c in
            let anon = try await c.send(.get, "/a.json", headers: [:])
            #expect(anon.0 == .unauthorized)
            #expect(anon.1 == #"{"error":"Permission denied"}"#)
            let wrong = try await c.send(.put, "/a.json", "1", headers: [.authorization: "Bearer nope"])
            #expect(wrong.0 == .unauthorized)
            #expect(try await c.send(.get, "/a.json?access_token=owner", headers: [:]).0 == .ok)
            #expect(try await c.send(.get, "/a.json").1 == "null")
        }
    }

    @Test func printSilentAndPretty() async throws {
        try await withRouterClient { c in
            let silent = try await c.send(.put, "/a.json?print=silent", #"{"b":1}"#)
            #expect(silent.0 == .noContent)
            #expect(silent.1.isEmpty)
            #expect(try await c.send(.get, "/a.json?print=silent").0 == .noContent)
            #expect(try await c.send(.get, "/a.json?print=pretty").1 == "{\n  \"b\" : 1\n}")
        }
    }

    @Test func prioritiesAndExportFormat() async throws {
        try await withRouterClient { c in
            _ = try await c.send(.put, "/u/jack.json", #"{"age":30}"#)
            #expect(try await c.send(.put, "/u/jack/.priority.json", "7").0 == .ok)
            _ = try await c.send(.put, "/v.json", #"{".value":1,".priority":5}"#)
            #expect(try await c.send(.get, "/.json?format=export").1 == #"{"u":{"jack":{".priority":7,"age":30}},"v":{".priority":5,".value":1}}"#)
            #expect(try await c.send(.get, "/v.json").1 == "1")
        }
    }

    @Test("a .priority path reads the priority, DELETE clears only the priority, and POST/PATCH/streams there are refused")
    func priorityPaths() async throws {
        try await withRouterClient { c in
            _ = try await c.send(.put, "/pd.json", #"{"a":{"x":1,".priority":7},"b":1}"#)
            let read = try await c.send(.get, "/pd/a/.priority.json")
            #expect(read.0 == .ok && read.1 == "7")
            #expect(try await c.send(.get, "/pd/b/.priority.json").1 == "null")
            #expect(try await c.send(.get, "/pd/a/.priority.json?orderBy=%22x%22").0 == .badRequest)
            for (method, body) in [(HTTPRequest.Method.post, "1"), (.patch, #"{"z":1}"#)] {
                let (status, error, _) = try await c.send(method, "/pd/a/.priority.json", body)
                #expect(status == .badRequest, "\(method)")
                #expect(error.contains(".priority"))
            }
            let stream = try await c.send(.get, "/pd/a/.priority.json", headers: admin + [.accept: "text/event-stream"])
            #expect(stream.0 == .badRequest)
            // Nothing above changed the data.
            #expect(try await c.send(.get, "/pd.json?format=export").1 == #"{"a":{".priority":7,"x":1},"b":1}"#)
            // DELETE clears the priority and keeps the node (it used to delete the node).
            let deleted = try await c.send(.delete, "/pd/a/.priority.json")
            #expect(deleted.0 == .ok && deleted.1 == "null")
            #expect(try await c.send(.get, "/pd.json?format=export").1 == #"{"a":{"x":1},"b":1}"#)
            // The same through the method override.
            _ = try await c.send(.put, "/pd/a/.priority.json", #""s""#)
            #expect(try await c.send(.get, "/pd/a/.priority.json").1 == #""s""#)
            _ = try await c.send(.post, "/pd/a/.priority.json", headers: admin + [HTTPField(name: .init("X-HTTP-Method-Override")!, value: "DELETE")])
            #expect(try await c.send(.get, "/pd.json?format=export").1 == #"{"a":{"x":1},"b":1}"#)
        }
    }

    @Test func etagsAndConditionalWrites() async throws {
        try await withRouterClient { c in
            let missing = try await c.send(.get, "/n.json", headers: admin + [HTTPField(name: .init("X-Firebase-ETag")!, value: "true")])
            #expect(missing.2[.eTag] == "null_etag")
            let created = try await c.send(.put, "/n.json", "5", headers: admin + [HTTPField(name: .init("if-match")!, value: "null_etag")])
            #expect(created.0 == .ok)
            let etag = try #require(created.2[.eTag])
            #expect(etag != "null_etag")
            let stale = try await c.send(.put, "/n.json", "6", headers: admin + [HTTPField(name: .init("if-match")!, value: "null_etag")])
            #expect(stale.0 == .preconditionFailed)
            #expect(stale.1 == "5")
            #expect(stale.2[.eTag] == etag)
            let unchanged = try await c.send(.get, "/n.json", headers: admin + [HTTPField(name: .init("if-none-match")!, value: etag)])
            #expect(unchanged.0 == .notModified)
            let del = try await c.send(.delete, "/n.json", headers: admin + [HTTPField(name: .init("if-match")!, value: "bogus")])
            #expect(del.0 == .preconditionFailed)
            #expect(try await c.send(.get, "/n.json").1 == "5")
        }
    }

    @Test func pushIdsAreChronological() async throws {
        try await withRouterClient { c in
            var names: [String] = []
            for i in 0..<20 {
                let r = try await c.send(.post, "/log.json", "\(i)")
                #expect(r.0 == .ok)
                let name = String(r.1.dropFirst(9).dropLast(2))
                #expect(name.count == 20)
                names.append(name)
            }
            #expect(names == names.sorted())
            #expect(Set(names).count == 20)
        }
    }

    /// JSON has no infinity: an increment whose sum overflows a double is refused, and the stored number,
    /// its priority and the rest of a multi-path update stay as they were (stored, `inf` made the value unreadable).
    @Test func anIncrementPastTheLargestDoubleIsRefusedAndChangesNothing() async throws {
        try await withRouterClient { c in
            _ = try await c.send(.put, "/n.json", #"{"big":1e308,"small":1,".priority":1e308}"#)
            let put = try await c.send(.put, "/n/big.json", #"{".sv":{"increment":1e308}}"#)
            #expect(put.0 == .badRequest)
            #expect(put.1.contains("out of range"), "\(put.1)")
            // One entry out of range refuses the whole update: `small` is not incremented either.
            let both = try await c.send(.patch, "/n.json", #"{"small":{".sv":{"increment":1}},"big":{".sv":{"increment":1.7e308}},"gone":null}"#)
            #expect(both.0 == .badRequest)
            let priority = try await c.send(.put, "/n/.priority.json", #"{".sv":{"increment":1e308}}"#)
            #expect(priority.0 == .badRequest)
            let patch = try await c.send(.patch, "/n.json", #"{"small":{".sv":{"increment":1}},"big":{".sv":{"increment":-1e308}}}"#)
            #expect(patch.0 == .ok, "a sum that stays finite is fine: \(patch.1)")
            let negative = try await c.send(.put, "/n/small.json", #"{".sv":{"increment":-1.7976931348623157e308}}"#)
            #expect(negative.0 == .ok, "\(negative.1)")
            let stored = try await c.send(.get, "/n.json?format=export")
            #expect(stored.0 == .ok)
            #expect(stored.1 == #"{".priority":1e+308,"big":0,"small":-1.7976931348623157e+308}"#)
        }
    }

    @Test func multiPathPatchIsAtomic() async throws {
        try await withRouterClient { c in
            _ = try await c.send(.put, "/u.json", #"{"a":{"x":1},"b":2}"#)
            let ok = try await c.send(.patch, "/u.json", #"{"a/y":2,"c":{".sv":{"increment":3}},"b":null}"#)
            #expect(ok.1 == #"{"a/y":2,"c":3,"b":null}"#)
            #expect(try await c.send(.get, "/u.json").1 == #"{"a":{"x":1,"y":2},"c":3}"#)
            let bad = try await c.send(.patch, "/u.json", #"{"d":1,"e.f":2}"#)
            #expect(bad.0 == .badRequest)
            let overlap = try await c.send(.patch, "/u.json", #"{"a":1,"a/b":2}"#)
            #expect(overlap.0 == .badRequest)
            // One path in two spellings overlaps too.
            let twice = try await c.send(.patch, "/u.json", #"{"a/b":1,"a//b":2}"#)
            #expect(twice.0 == .badRequest)
            #expect(twice.1.contains("twice"))
            #expect(try await c.send(.get, "/u.json").1 == #"{"a":{"x":1,"y":2},"c":3}"#)
            #expect(try await c.send(.patch, "/u.json", "5").1 == #"{"error":"Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?"}"#)
        }
    }

    @Test(arguments: [
        (#"{"a.b":1}"#, "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."),
        ("{not json", "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."),
        ("1 2", "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."),
        ("", "No data supplied."),
        (#"{".sv":"bogus"}"#, "Invalid data; unrecognized server value"),
    ])
    func badWritesAreRefusedWithFirebaseMessages(body: String, message: String) async throws {
        try await withRouterClient { c in
            let r = try await c.send(.put, "/x.json", body)
            #expect(r.0 == .badRequest)
            #expect(r.1 == #"{"error":"\#(message)"}"#)
            #expect(try await c.send(.get, "/x.json").1 == "null")
        }
    }

    @Test("a string value over 10 MiB is refused and nothing is written; 10 MiB exactly is accepted")
    func stringSizeLimit() async throws {
        try await withRouterClient { c in
            let limit = 10 << 20
            let over = try await c.send(.put, "/big.json", "\"" + String(repeating: "a", count: limit + 1) + "\"")
            #expect(over.0 == .badRequest)
            #expect(over.1.contains("10 MiB"))
            let nested = try await c.send(.patch, "/big.json", #"{"x":{".value":""# + "\"" + String(repeating: "é", count: limit / 2 + 1) + "\"" + #","".priority":1}}"#)
            #expect(nested.0 == .badRequest)
            #expect(try await c.send(.get, "/big.json?shallow=true").1 == "null")
            #expect(try await c.send(.put, "/big.json?print=silent", "\"" + String(repeating: "a", count: limit) + "\"").0 == .noContent)
        }
    }

    @Test("a CORS preflight names the headers it was asked for (a wildcard does not cover Authorization)")
    func corsPreflightEchoesHeaders() async throws {
        try await withRouterClient { c in
            let asked = try await c.send(.options, "/a.json", headers: [
                .origin: "http://x.com", .accessControlRequestMethod: "PUT", .accessControlRequestHeaders: "authorization,content-type",
            ])
            #expect(asked.0 == .ok)
            #expect(asked.2[.accessControlAllowHeaders] == "authorization,content-type")
            #expect(asked.2[.accessControlAllowOrigin] == "*")
        }
    }

    @Test func depthAndKeyLengthLimits() async throws {
        try await withRouterClient { c in
            var deep = "1"
            for _ in 0..<33 { deep = "{\"k\":" + deep + "}" }
            let tooDeep = try await c.send(.put, "/x.json", deep)
            #expect(tooDeep.0 == .badRequest)
            let longKey = "{\"" + String(repeating: "k", count: 769) + "\":1}"
            let tooLong = try await c.send(.put, "/x.json", longKey)
            #expect(tooLong.0 == .badRequest)
            let maxKey = "{\"" + String(repeating: "k", count: 768) + "\":1}"
            let fits = try await c.send(.put, "/x.json", maxKey)
            #expect(fits.0 == .ok)
            #expect(try await c.send(.get, "/a%2Fb.json").0 == .badRequest)
        }
    }

    @Test func queriesNeedAnIndexUnlessScanning() async throws {
        try await withRouterClient { c in
            _ = try await c.send(.put, "/d.json", #"{"a":{"h":3},"b":{"h":1},"c":{"h":2}}"#)
            let noIndex = try await c.send(.get, #"/d.json?orderBy="h"&limitToFirst=1"#)
            #expect(noIndex.0 == .badRequest)
            #expect(noIndex.1 == #"{"error":"Index not defined, add \".indexOn\": \"h\", for path \"/d\", to the rules"}"#)
            #expect(try await c.send(.get, "/d.json?limitToFirst=1").1 == #"{"error":"orderBy must be defined when other query parameters are defined"}"#)
            #expect(try await c.send(.put, "/.settings/rules.json", #"{"rules": {"d": {".indexOn": "h"}}} // indexed"#).0 == .ok)
            #expect(try await c.send(.get, #"/d.json?orderBy="h"&limitToFirst=2"#).1 == #"{"b":{"h":1},"c":{"h":2}}"#)
            #expect(try await c.send(.get, #"/d.json?orderBy="$key"&startAt="b""#).1 == #"{"b":{"h":1},"c":{"h":2}}"#)
            let strict = try await c.send(.get, "/.settings/rules.json?format=strict")
            #expect(strict.1.contains("\".indexOn\" : \"h\""))
            #expect(try await c.send(.get, "/.settings/rules.json").1.hasSuffix("// indexed"))
            #expect(try await c.send(.put, "/.settings/rules.json", #"{"nope": 1}"#).0 == .badRequest)
        }
        try await withRouterClient(indexPolicy: .scan) { c in
            _ = try await c.send(.put, "/d.json", #"{"a":{"h":3},"b":{"h":1}}"#)
            #expect(try await c.send(.get, #"/d.json?orderBy="h"&limitToLast=1"#).1 == #"{"a":{"h":3}}"#)
        }
    }

    @Test func methodOverrideAndNamespaces() async throws {
        try await withRouterClient { c in
            // Outside --dev a namespace other than the default exists once the admin created it.
            #expect(try await c.send(.put, "/.settings/namespaces/one.json").0 == .ok)
            #expect(try await c.send(.put, "/.settings/namespaces/two.json").0 == .ok)
            _ = try await c.send(.put, "/x.json?ns=one", "1")
            _ = try await c.send(.put, "/x.json?ns=two", "2")
            #expect(try await c.send(.get, "/x.json?ns=one").1 == "1")
            #expect(try await c.send(.get, "/x.json?ns=two").1 == "2")
            let override = try await c.send(.post, "/x.json?ns=one", "", headers: admin + [HTTPField(name: .init("X-HTTP-Method-Override")!, value: "DELETE")])
            #expect(override.0 == .ok)
            #expect(try await c.send(.get, "/x.json?ns=one").1 == "null")
            #expect(try await c.send(.get, "/x.json?ns=bad%20name").0 == .notFound)
            #expect(try await c.send(.get, "/x").0 == .notFound)
        }
    }
}
