import HTTPTypes
import HearthServer
import Testing

/// `shallow=values`: one level of a location, primitives as themselves and objects as `{}`, with key paging.
@Suite("REST shallow=values")
struct ShallowValuesTests {
    @Test func childrenOneLevelDeepWithKeyPaging() async throws {
        try await withRouterClient { client in
            _ = try await client.send(.put, "/t.json", #"{"a":{"x":{"y":1}},"b":2,"c":{"z":3},"d":true,"e":"s"}"#)
            #expect(try await client.send(.get, "/t.json?shallow=values").1 == #"{"a":{},"b":2,"c":{},"d":true,"e":"s"}"#)
            #expect(try await client.send(.get, #"/t.json?shallow=values&orderBy="$key"&limitToFirst=2"#).1 == #"{"a":{},"b":2}"#)
            #expect(try await client.send(.get, #"/t.json?shallow=values&orderBy="$key"&startAfter="b"&limitToFirst=2"#).1 == #"{"c":{},"d":true}"#)
            #expect(try await client.send(.get, "/t/b.json?shallow=values").1 == "2")
            #expect(try await client.send(.get, "/nothing.json?shallow=values").1 == "null")
            let mixed = try await client.send(.get, #"/t.json?shallow=values&orderBy="b""#)
            #expect(mixed.0 == .badRequest)
            // Firebase's own shallow is unchanged: every child is `true`.
            #expect(try await client.send(.get, "/t.json?shallow=true").1 == #"{"a":true,"b":true,"c":true,"d":true,"e":true}"#)
        }
    }

    @Test func readRulesApply() async throws {
        try await withRouterClient { client in
            _ = try await client.send(.put, "/t.json", #"{"a":{"x":1},"b":2}"#)
            _ = try await client.send(.put, "/.settings/rules.json", #"{"rules":{"t":{"a":{".read":true}}}}"#)
            #expect(try await client.send(.get, "/t.json?shallow=values", headers: [:]).0 == .unauthorized)
            #expect(try await client.send(.get, "/t/a.json?shallow=values", headers: [:]).1 == #"{"x":1}"#)
        }
    }
}
