import HearthCore
import HearthWire
import Testing

/// The realtime protocol's names and bodies as HearthWire types: every name round-trips its wire
/// string, names from a newer peer survive, and bodies read what clients send and print the bytes
/// both sides sent before these types existed.
@Suite("Realtime wire types")
struct RealtimeWireTypesTests {
    static let actions: [(RealtimeAction, String)] = [
        (.stats, "s"), (.auth, "auth"), (.googleAuth, "gauth"), (.unauth, "unauth"), (.appCheck, "appcheck"),
        (.appCheckRemove, "unappeck"), (.listen, "q"), (.legacyListen, "l"), (.unlisten, "n"), (.legacyUnlisten, "u"),
        (.get, "g"), (.put, "p"), (.merge, "m"), (.onDisconnectPut, "o"), (.onDisconnectMerge, "om"), (.onDisconnectCancel, "oc"),
    ]
    static let pushes: [(RealtimePushAction, String)] = [
        (.data, "d"), (.merge, "m"), (.listenRevoked, "c"), (.authRevoked, "ac"), (.appCheckRevoked, "apc"), (.securityDebug, "sd"),
        (.rangeMerge, "rm"),
    ]
    static let controls: [(RealtimeControlType, String)] = [
        (.handshake, "h"), (.ping, "p"), (.pong, "o"), (.shutdown, "s"), (.reset, "r"), (.error, "e"), (.endOfTransmission, "n"),
    ]
    static let statuses: [(RealtimeStatus, String)] = [
        (.ok, "ok"), (.permissionDenied, "permission_denied"), (.dataStale, "datastale"), (.failed, "failed"), (.tooBig, "too_big"),
        (.unavailable, "unavailable"), (.invalidToken, "invalid_token"), (.expiredToken, "expired_token"),
    ]

    @Test("every request action is its wire string, in a request that round-trips")
    func requestActions() throws {
        #expect(Self.actions.map(\.0) == RealtimeAction.known)
        for (action, wire) in Self.actions {
            #expect(action.rawValue == wire)
            let parsed = RealtimeAction(rawValue: wire)
            #expect(parsed == action)
            if case .other = parsed { Issue.record("\(wire) has a case but parsed as other") }
            let text = RealtimeMessage.request(id: 7, action: action, body: .object([])).text
            #expect(text == #"{"t":"d","d":{"r":7,"a":"\#(wire)","b":{}}}"#)
            #expect(try RealtimeMessage(parsing: text) == .request(id: 7, action: action, body: .object([])))
        }
        // The legacy spellings mean the same but are kept as sent.
        #expect(RealtimeAction(rawValue: "l") != .listen)
        #expect(RealtimeAction(rawValue: "u").rawValue == "u")
    }

    @Test("every push action, control type and status is its wire string, in a message that round-trips")
    func pushesControlsStatuses() throws {
        #expect(Self.pushes.map(\.0) == RealtimePushAction.known)
        #expect(Self.controls.map(\.0) == RealtimeControlType.known)
        #expect(Self.statuses.map(\.0) == RealtimeStatus.known)
        for (action, wire) in Self.pushes {
            #expect(action.rawValue == wire)
            if case .other = RealtimePushAction(rawValue: wire) { Issue.record("push \(wire) parsed as other") }
            let text = RealtimeMessage.push(action: action, body: .null).text
            #expect(text == #"{"t":"d","d":{"a":"\#(wire)","b":null}}"#)
            #expect(try RealtimeMessage(parsing: text) == .push(action: action, body: .null))
        }
        for (type, wire) in Self.controls {
            #expect(type.rawValue == wire)
            if case .other = RealtimeControlType(rawValue: wire) { Issue.record("control \(wire) parsed as other") }
            let text = RealtimeMessage.control(type: type, payload: .null).text
            #expect(text == #"{"t":"c","d":{"t":"\#(wire)","d":null}}"#)
            #expect(try RealtimeMessage(parsing: text) == .control(type: type, payload: .null))
        }
        for (status, wire) in Self.statuses {
            #expect(status.rawValue == wire)
            if case .other = RealtimeStatus(rawValue: wire) { Issue.record("status \(wire) parsed as other") }
            let text = RealtimeMessage.response(id: 2, status: status, data: .string("")).text
            #expect(text == #"{"t":"d","d":{"r":2,"b":{"s":"\#(wire)","d":""}}}"#)
            #expect(try RealtimeMessage(parsing: text) == .response(id: 2, status: status, data: .string("")))
        }
        #expect(RealtimeMessage.pong.text == #"{"t":"c","d":{"t":"o","d":null}}"#)
    }

    @Test("names from a newer peer are kept and printed back as they came")
    func unknownNames() throws {
        let request = #"{"t":"d","d":{"r":1,"a":"zz","b":{"x":1}}}"#
        let parsed = try RealtimeMessage(parsing: request)
        #expect(parsed == .request(id: 1, action: .other("zz"), body: .object([JSONMember("x", .int(1))])))
        #expect(parsed.text == request)
        for text in [#"{"t":"d","d":{"a":"new","b":{}}}"#, #"{"t":"c","d":{"t":"q","d":1}}"#, #"{"t":"d","d":{"r":4,"b":{"s":"later","d":""}}}"#] {
            #expect(try RealtimeMessage(parsing: text).text == text)
        }
        #expect(RealtimeStatus(rawValue: "later") == .other("later"))
        #expect(RealtimeAction.other("q") == .listen)
        #expect(Set([RealtimeStatus.other("ok"), .ok]).count == 1)
        #expect("\(RealtimeAction.other("zz"))" == "zz")
    }

    @Test("listen bodies read what the SDKs send: untagged with an empty hash, tagged with a query and a numeric tag")
    func listenBodies() throws {
        let js = try RealtimeListenRequest(body: JSONValue.parse(#"{"p":"/users","h":""}"#))
        #expect(js == RealtimeListenRequest(path: "/users", hash: ""))
        #expect(js.queryObject == nil)
        #expect(try js.parsedQuery() == nil)

        let tagged = try RealtimeListenRequest(
            body: JSONValue.parse(#"{"p":"/dinos","q":{"sp":2.5,"sin":true,"l":2.0,"vf":"l","i":"height"},"t":3,"h":""}"#))
        #expect(tagged.tag == 3)
        #expect(tagged.hash == "")
        #expect(tagged.queryObject == (try JSONValue.parse(#"{"i":"height","l":2,"sin":true,"sp":2.5,"vf":"l"}"#)))
        let query = try #require(try tagged.parsedQuery())
        #expect(query.limit == .first(2))
        #expect(query.order == .child(Path("height")))

        // `q` null or `{}` is a plain listen; a tag that is not an integer does not count.
        #expect(try RealtimeListenRequest(body: JSONValue.parse(#"{"p":"a","q":{},"t":1}"#)).queryObject == nil)
        #expect(try RealtimeListenRequest(body: JSONValue.parse(#"{"p":"a","q":null}"#)).queryObject == nil)
        #expect(try RealtimeListenRequest(body: JSONValue.parse(#"{"p":"a","t":"1"}"#)).tag == nil)

        // What the Swift SDK sends, byte for byte.
        #expect(RealtimeListenRequest(path: "/a", hash: "").body.jsonString == #"{"p":"/a","h":""}"#)
        #expect(RealtimeListenRequest(path: "/a", query: .object([]), tag: 2, hash: "x").body.jsonString == #"{"p":"/a","q":{},"t":2,"h":"x"}"#)
        #expect(RealtimeListenRequest(path: "/a", query: .object([]), tag: 2).body.jsonString == #"{"p":"/a","q":{},"t":2}"#)
    }

    @Test("malformed bodies give the text the server answers with")
    func malformedBodies() throws {
        #expect(throws: RealtimeBodyError("Request lacks a path")) { try RealtimeListenRequest(body: JSONValue.parse(#"{"h":""}"#)) }
        #expect(throws: RealtimeBodyError.missingPath) { try RealtimeListenRequest(body: JSONValue.parse(#"{"p":1}"#)) }
        #expect(throws: RealtimeBodyError.missingPath) { try RealtimeGetRequest(body: .null) }
        #expect(throws: RealtimeBodyError.missingPath) { try RealtimeWriteRequest(body: JSONValue.parse(#"{"d":1}"#)) }
        #expect(throws: RealtimeBodyError("Missing credential")) { try RealtimeAuthRequest(body: JSONValue.parse(#"{"cred":5}"#)) }
        #expect(throws: RealtimeBodyError.missingPushPath) { try RealtimeDataPush(body: JSONValue.parse(#"{"d":1}"#)) }
        #expect(throws: RealtimeBodyError.missingPushPath) { try RealtimeListenRevoked(body: .object([])) }
        let bad = try RealtimeListenRequest(body: JSONValue.parse(#"{"p":"a","q":"x"}"#))
        #expect(throws: QueryError("Query must be an object")) { try bad.parsedQuery() }
        let negative = try RealtimeGetRequest(body: JSONValue.parse(#"{"p":"a","q":{"l":-1}}"#))
        #expect(throws: QueryError("Query limit must be a non-negative integer")) { try negative.parsedQuery() }
    }

    @Test("get, write and auth bodies read and print as the SDK sends them")
    func requestBodies() throws {
        let get = RealtimeGetRequest(path: "/users", query: .object([]))
        #expect(get.body.jsonString == #"{"p":"/users","q":{}}"#)
        #expect(try RealtimeGetRequest(body: get.body) == get)
        #expect(try get.parsedQuery() == nil)

        let put = RealtimeWriteRequest(path: "/a/b", data: .int(1), hash: "abc")
        #expect(put.body.jsonString == #"{"p":"/a/b","d":1,"h":"abc"}"#)
        #expect(try RealtimeWriteRequest(body: put.body) == put)
        #expect(RealtimeWriteRequest(path: "/a", data: .null).body.jsonString == #"{"p":"/a","d":null}"#)
        let noData = try RealtimeWriteRequest(body: JSONValue.parse(#"{"p":"x","h":5}"#))
        #expect(noData.data == .null && noData.hash == nil)

        #expect(RealtimeAuthRequest(credential: "tok").body.jsonString == #"{"cred":"tok"}"#)
        let admin = try RealtimeAuthRequest(body: JSONValue.parse(#"{"cred":"owner","authvar":{"uid":"u"}}"#))
        #expect(admin.authvar == (try JSONValue.parse(#"{"uid":"u"}"#)) && !admin.noauth)
        #expect(try RealtimeAuthRequest(body: JSONValue.parse(#"{"cred":"owner","authvar":"no"}"#)).authvar == nil)
        #expect(try RealtimeAuthRequest(body: JSONValue.parse(#"{"cred":"owner","noauth":true}"#)).noauth)
    }

    @Test("push bodies read what the server writes and print the same bytes")
    func pushBodies() throws {
        let bytes = RealtimeMessage.dataPush(path: Path("a/b"), node: .leaf(.int(1), priority: nil), tag: 4)
        guard case .push(.data, let body) = try RealtimeMessage(parsing: String(decoding: bytes, as: UTF8.self)) else {
            Issue.record("not a data push")
            return
        }
        let push = try RealtimeDataPush(body: body)
        #expect(push == RealtimeDataPush(path: "a/b", data: .int(1), tag: 4))
        #expect(RealtimeMessage.push(action: .data, body: push.body).text == String(decoding: bytes, as: UTF8.self))
        #expect(try RealtimeDataPush(body: JSONValue.parse(#"{"p":"/x"}"#)) == RealtimeDataPush(path: "/x", data: .null))

        let revoked = RealtimeListenRevoked(path: "users", query: .object([JSONMember("l", .int(1))]))
        #expect(revoked.body.jsonString == #"{"p":"users","q":[{"l":1}]}"#)
        #expect(try RealtimeListenRevoked(body: revoked.body) == revoked)
        #expect(try RealtimeListenRevoked(body: JSONValue.parse(#"{"p":"u","q":{"l":1}}"#)).query == .object([JSONMember("l", .int(1))]))
        #expect(try RealtimeListenRevoked(body: JSONValue.parse(#"{"p":"u","q":[]}"#)).query == nil)
        #expect(RealtimeListenRevoked(path: "u").body.jsonString == #"{"p":"u"}"#)

        let expired = RealtimeAuthRevoked(status: .expiredToken, reason: "Auth token is expired.")
        #expect(expired.body.jsonString == #"{"s":"expired_token","d":"Auth token is expired."}"#)
        #expect(RealtimeAuthRevoked(body: expired.body) == expired)
        let odd = RealtimeAuthRevoked(body: .object([JSONMember("s", .int(1))]))
        #expect(odd.status == .other("") && odd.reason == "")
    }
}
