import HearthCore
@testable import HearthServer
import HearthWire
import Testing

// The session reads request bodies through HearthWire's types: malformed ones are answered with the
// same statuses and texts, legacy spellings act as their modern actions.
extension RealtimeSessionTests {
    @Test("malformed request bodies are answered failed (or invalid_token) with the wire text")
    func malformedBodies() async throws {
        let h = try await Harness()
        let answers: [(String, String, String, String)] = [
            ("q", #"{"h":""}"#, "failed", "Request lacks a path"),
            ("n", "{}", "failed", "Request lacks a path"),
            ("g", #"{"p":3}"#, "failed", "Request lacks a path"),
            ("p", #"{"d":1}"#, "failed", "Request lacks a path"),
            ("m", #"{"p":"/a","d":1}"#, "failed", ErrorMessage.invalidPatch),
            ("oc", "null", "failed", "Request lacks a path"),
            ("q", #"{"p":"/a","q":"x","t":1}"#, "failed", "Query must be an object"),
            ("g", #"{"p":"/a","q":{"l":-1}}"#, "failed", "Query limit must be a non-negative integer"),
            ("auth", #"{"token":"x"}"#, "invalid_token", "Missing credential"),
            ("gauth", #"{"cred":null}"#, "invalid_token", "Missing credential"),
        ]
        for (i, (action, body, status, text)) in answers.enumerated() {
            try await h.send(i + 1, action, body)
            let expected = JSONValue.object([
                JSONMember("t", .string("d")),
                JSONMember("d", .object([
                    JSONMember("r", .int(Int64(i + 1))), JSONMember("b", .object([JSONMember("s", .string(status)), JSONMember("d", .string(text))])),
                ])),
            ])
            #expect(try await h.next() == expected, "\(action) \(body)")
        }
    }

    @Test("legacy l/u listen and unlisten like q/n; an unlisten spelling the query differently still matches")
    func legacyAndCanonicalListens() async throws {
        let h = try await Harness()
        try await h.write("a", #"{"x":1,"y":2}"#)
        try await h.send(1, "l", #"{"p":"/a"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":{"x":1,"y":2}}}}"#))
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{}}}}"#))
        try await h.send(2, "q", #"{"p":"/a","q":{"l":1.0,"vf":"l","i":".key"},"t":7,"h":""}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"a":"d","b":{"p":"a","d":{"x":1},"t":7}}}"#))
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{}}}}"#))
        #expect(await h.session.listenCount == 2)
        try await h.send(3, "u", #"{"p":"/a","q":{"i":".key","vf":"l","l":1},"t":7}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":3,"b":{"s":"ok","d":""}}}"#))
        #expect(await h.session.listenCount == 1)
        try await h.send(4, "u", #"{"p":"/a"}"#)
        #expect(try await h.next() == json(#"{"t":"d","d":{"r":4,"b":{"s":"ok","d":""}}}"#))
        #expect(await h.session.listenCount == 0)
    }
}
