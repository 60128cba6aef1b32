import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Rules enforcement over REST, in production mode (no `--dev`) unless stated.
@Suite("Rules over REST")
struct RulesRouterTests {
    static func unsignedToken(_ claims: String) -> String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(claims) + "."
    }

    static func asUser(_ uid: String) -> String {
        "auth_variable_override=" + #"{"uid":"\#(uid)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// Deny by default: outside `--dev` the project's default namespace starts locked, like every other one,
    /// until the admin deploys rules; a signed-in user is refused as much as an anonymous caller.
    @Test func theDefaultNamespaceStartsLockedOutsideDev() async throws {
        try await withRouterClient { client in
            let (rulesStatus, rules, _) = try await client.send(.get, "/.settings/rules.json?format=strict")
            #expect(rulesStatus == .ok)
            #expect(try JSONValue.parse(rules) == JSONValue.parse(#"{"rules":{".read":false,".write":false}}"#))
            let (anonymous, body, headers) = try await client.send(.get, "/a.json", headers: [:])
            #expect(anonymous == .unauthorized)
            #expect(body == #"{"error":"Permission denied"}"#)
            // Production mode never says which rule decided.
            #expect(headers[HTTPField.Name("X-Hearth-Rule")!] == nil)
            let (signedIn, _, _) = try await client.send(.put, "/a.json?" + Self.asUser("u1"), "1")
            #expect(signedIn == .unauthorized)
            let (admin, _, _) = try await client.send(.put, "/a.json", "1")
            #expect(admin == .ok)
            // Once rules are deployed they apply as written.
            let (deployed, _, _) = try await client.send(
                .put, "/.settings/rules.json", #"{"rules":{".read":"auth != null",".write":"auth != null"}}"#)
            #expect(deployed == .ok)
            let (afterDeploy, _, _) = try await client.send(.put, "/a.json?" + Self.asUser("u1"), "2")
            #expect(afterDeploy == .ok)
        }
    }

    @Test func unverifiedTokensAreRefusedOutsideDevAndAcceptedInDev() async throws {
        let token = Self.unsignedToken(#"{"sub":"alice","firebase":{"sign_in_provider":"password"}}"#)
        try await withRouterClient { client in
            let (status, body, _) = try await client.send(.get, "/a.json", headers: [.authorization: "Bearer \(token)"])
            #expect(status == .unauthorized)
            #expect(body == #"{"error":"Could not parse auth token."}"#)
        }
        try await withRouterClient(dev: true) { client in
            let rules = #"{"rules":{"users":{"$uid":{".read":"auth.uid === $uid && auth.provider === 'password'",".write":"auth.token.sub === $uid"}}}}"#
            #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
            #expect(try await client.send(.put, "/users/alice.json?auth=\(token)", "1", headers: [:]).0 == .ok)
            #expect(try await client.send(.get, "/users/alice.json", headers: [.authorization: "Bearer \(token)"]).1 == "1")
            let (denied, _, headers) = try await client.send(.put, "/users/bob.json?auth=\(token)", "1", headers: [:])
            #expect(denied == .unauthorized)
            #expect(headers[HTTPField.Name("X-Hearth-Rule")!]?.contains("/users/$uid/.write") == true)
            #expect(try await client.send(.get, "/users/bob.json?auth=not-a-token", headers: [:]).1 == #"{"error":"Could not parse auth token."}"#)
            // Expired (an hour ago): refused over REST as the realtime socket refuses it, not read as alice.
            let expired = Self.unsignedToken(#"{"sub":"alice","exp":\#(Int(Date().timeIntervalSince1970) - 3600)}"#)
            let (status, body, _) = try await client.send(.get, "/users/alice.json?auth=\(expired)", headers: [:])
            #expect(status == .unauthorized)
            #expect(body == #"{"error":"Auth token is expired"}"#)
        }
    }

    @Test("a failed if-match answers the current value and ETag only to a caller who may write and read there")
    func failedPreconditionsLeakNothing() async throws {
        try await withRouterClient { client in
            let rules = #"{"rules":{"wo":{".write":true,".read":false},"rw":{".write":true,".read":true}}}"#
            #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
            for path in ["/hidden", "/wo", "/rw"] {
                #expect(try await client.send(.put, "\(path).json", #"{"pw":"hunter2"}"#).0 == .ok)
            }
            let wrong: HTTPFields = [HTTPField.Name("if-match")!: "bogus"]
            // No write access (and no read access): denied before the precondition is looked at.
            for method in [HTTPRequest.Method.put, .delete] {
                let (status, body, headers) = try await client.send(method, "/hidden.json", method == .put ? "1" : nil, headers: wrong)
                #expect(status == .unauthorized, "\(method)")
                #expect(body == #"{"error":"Permission denied"}"#)
                #expect(headers[.eTag] == nil)
            }
            // May write but not read: the mismatch is answered as a denial, without the value or its ETag.
            let (writeOnly, writeOnlyBody, writeOnlyHeaders) = try await client.send(.put, "/wo.json", "1", headers: wrong)
            #expect(writeOnly == .unauthorized)
            #expect(!writeOnlyBody.contains("hunter2"))
            #expect(writeOnlyHeaders[.eTag] == nil)
            // May write and read: Firebase's 412 with the current value and its ETag.
            let (readable, readableBody, readableHeaders) = try await client.send(.put, "/rw.json", "1", headers: wrong)
            #expect(readable == .preconditionFailed)
            #expect(readableBody == #"{"pw":"hunter2"}"#)
            let etag = try #require(readableHeaders[.eTag])
            // With the right ETag the write goes through, for the write-only caller too.
            #expect(try await client.send(.put, "/rw.json", "2", headers: [HTTPField.Name("if-match")!: etag]).0 == .ok)
            // Nothing was changed by the refused requests.
            #expect(try await client.send(.get, "/hidden.json").1 == #"{"pw":"hunter2"}"#)
            #expect(try await client.send(.get, "/wo.json").1 == #"{"pw":"hunter2"}"#)
        }
    }

    /// `PATCH {}` by a signed-out caller under deny-all rules used to stop the server (the rules check had
    /// nothing to grant). An empty update writes nothing: 200 `{}`, as for the admin.
    @Test func anEmptyUpdateIsANoOpForEveryone() async throws {
        try await withRouterClient { client in
            #expect(try await client.send(.put, "/.settings/rules.json", #"{"rules":{".read":false,".write":false}}"#).0 == .ok)
            #expect(try await client.send(.put, "/x.json", #"{"a":1}"#).0 == .ok)
            let (status, body, _) = try await client.send(.patch, "/x.json", "{}", headers: [:])
            #expect(status == .ok)
            #expect(body == "{}")
            let (asUser, userBody, _) = try await client.send(.patch, "/x.json?\(Self.asUser("u"))", "{}")
            #expect(asUser == .ok)
            #expect(userBody == "{}")
            #expect(try await client.send(.get, "/x.json").1 == #"{"a":1}"#)
        }
    }

    @Test func writesAreCheckedAtomicallyWithServerValues() async throws {
        try await withRouterClient { client in
            let rules = """
                {"rules": {
                  "counters": {"$c": {".write": "auth != null", ".validate": "newData.isNumber() && newData.val() === (data.exists() ? data.val() : 0) + 1"}},
                  "stamps": {"$s": {".write": "auth != null", ".validate": "newData.val() === now"}}
                }}
                """
            #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
            let user = Self.asUser("u")
            #expect(try await client.send(.put, "/counters/a.json?\(user)", #"{".sv":{"increment":1}}"#).0 == .ok)
            #expect(try await client.send(.put, "/counters/a.json?\(user)", #"{".sv":{"increment":1}}"#).0 == .ok)
            #expect(try await client.send(.put, "/counters/a.json?\(user)", #"{".sv":{"increment":2}}"#).0 == .unauthorized)
            #expect(try await client.send(.put, "/counters/a.json?\(user)", "7").0 == .unauthorized)
            #expect(try await client.send(.get, "/counters/a.json").1 == "2")
            #expect(try await client.send(.put, "/stamps/x.json?\(user)", #"{".sv":"timestamp"}"#).0 == .ok)
            #expect(try await client.send(.put, "/stamps/y.json?\(user)", "5").0 == .unauthorized)
            // Multi-path: one denied path denies all.
            let (patch, _, _) = try await client.send(.patch, "/.json?\(user)", #"{"stamps/z":{".sv":"timestamp"},"counters/a":9}"#)
            #expect(patch == .unauthorized)
            #expect(try await client.send(.get, "/stamps/z.json").1 == "null")
        }
    }

    @Test func rulesUploadErrorsAreLocatedAndKeepThePreviousRules() async throws {
        try await withRouterClient { client in
            let good = #"{"rules": {".read": true}}"#
            #expect(try await client.send(.put, "/.settings/rules.json", good).0 == .ok)
            let (status, body, _) = try await client.send(.put, "/.settings/rules.json", "{\n \"rules\": {\n  \".read\": \"7\"\n }\n}")
            #expect(status == .badRequest)
            #expect(body.contains("line 3, column"))
            #expect(try await client.send(.get, "/.settings/rules.json").1 == good)
            #expect(try await client.send(.get, "/x.json", headers: [:]).0 == .ok)
        }
    }

    @Test("shallow paging is checked with its limit, as the same query without shallow is")
    func shallowPagingSeesItsQuery() async throws {
        try await withRouterClient { client in
            let rules = #"{"rules":{"items":{".read":"query.limitToFirst <= 2"}}}"#
            #expect(try await client.send(.put, "/.settings/rules.json", rules).0 == .ok)
            #expect(try await client.send(.put, "/items.json", #"{"a":1,"b":{"x":1},"c":3}"#).0 == .ok)
            let user = Self.asUser("u1")
            let paged = try await client.send(.get, "/items.json?shallow=true&limitToFirst=2&" + user, headers: [:])
            #expect(paged.0 == .ok)
            #expect(paged.1 == #"{"a":true,"b":true}"#)
            let tooMany = try await client.send(.get, "/items.json?shallow=true&limitToFirst=3&" + user, headers: [:])
            #expect(tooMany.0 == .unauthorized)
            #expect(try await client.send(.get, "/items.json?shallow=true&" + user, headers: [:]).0 == .unauthorized)
        }
    }
}
