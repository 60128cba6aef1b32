import AsyncHTTPClient
import Foundation
import HTTPTypes
import HearthCore
import HearthFunctions
@testable import HearthServer
import HearthTesting
import HearthWire
import NIOCore
import NIOHTTP1
import Testing

/// `context.database.as(…)`: a function's reads and writes checked by the security rules with a user's
/// `auth`, as that user's own client would be, in a live server.
@Suite("Functions acting as a user")
struct UserDatabaseTests {
    typealias Live = FunctionsLiveTests

    /// Owners write their own `/items/$uid` (a name of at most 10 characters, a time not in the future);
    /// anyone signed in reads items; `/secrets` is closed; `/public` is readable by all, writable when
    /// signed in; `/feed` is read two at a time, ordered by `n`; `/staff` needs the `admin` claim.
    static let rules = """
        {"rules": {
          "items": {"$uid": {
            ".read": "auth != null",
            ".write": "auth != null && auth.uid == $uid",
            ".validate": "newData.hasChildren(['name'])",
            "name": {".validate": "newData.isString() && newData.val().length <= 10"},
            "at": {".validate": "newData.isNumber() && newData.val() <= now"},
            "$other": {".validate": true}
          }},
          "log": {"$uid": {".read": "auth.uid == $uid", ".write": "auth != null && auth.uid == $uid"}},
          "feed": {".read": "auth != null && query.orderByChild == 'n' && query.limitToFirst <= 2", ".indexOn": ["n"]},
          "secrets": {".read": false, ".write": false},
          "public": {".read": true, ".write": "auth != null"},
          "staff": {
            ".read": "auth.token.admin === true",
            ".write": "auth.token.admin === true && auth.provider == 'custom' && auth.token.sub == auth.uid"
          }
        }}
        """

    /// One database operation, sent to the `act` callable.
    struct Operation: Sendable {
        var op: String
        var path: String
        var value: JSONValue?
        var values: [String: JSONValue]?
        var key: String?
        /// Acts as this uid with these claims (``AdminDatabase/as(uid:claims:)``) instead of the caller.
        var uid: String?
        var claims: JSONValue?

        var json: JSONValue {
            var members = [JSONMember("op", .string(op)), JSONMember("path", .string(path))]
            if let value { members.append(JSONMember("value", value)) }
            if let values { members.append(JSONMember("values", .object(values.map { JSONMember($0.key, $0.value) }))) }
            if let key { members.append(JSONMember("key", .string(key))) }
            if let uid { members.append(JSONMember("uid", .string(uid))) }
            if let claims { members.append(JSONMember("claims", claims)) }
            return .object(members)
        }

        init(
            op: String, path: String, value: JSONValue? = nil, values: [String: JSONValue]? = nil, key: String? = nil, uid: String? = nil,
            claims: JSONValue? = nil
        ) {
            (self.op, self.path, self.value, self.values, self.key, self.uid, self.claims) = (op, path, value, values, key, uid, claims)
        }

        init(_ json: JSONValue) throws {
            guard let op = json["op"]?.stringValue, let path = json["path"]?.stringValue else {
                throw CallableError(.invalidArgument, "op and path")
            }
            var values: [String: JSONValue]?
            if case .object(let members)? = json["values"] {
                values = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            }
            self.init(
                op: op, path: path, value: json["value"], values: values, key: json["key"]?.stringValue, uid: json["uid"]?.stringValue,
                claims: json["claims"])
        }
    }

    /// `act` runs one operation through `context.database.as(request.auth)` (or `as(uid:claims:)`) and
    /// answers `{"ok": result}` or `{"denied": path, "description": …}`; `escape` lets the denial out,
    /// `refuse` turns it into `PERMISSION_DENIED`; `GET /api/items/{uid}` reads as the HTTP caller.
    static func functions() throws -> Functions {
        var functions = Functions()
        try functions.callable("act") { (data: JSONValue, request, context) -> JSONValue in
            let input = try Operation(data)
            let db = input.uid.map { context.database.as(uid: $0, claims: input.claims ?? .object([])) } ?? context.database.as(request.auth)
            do {
                let result: JSONValue
                switch input.op {
                case "get": result = try await db.get(input.path)
                case "set": result = .bool(try await db.set(input.path, input.value ?? .null, idempotencyKey: input.key))
                case "update": result = .bool(try await db.update(input.path, input.values ?? [:]))
                case "remove": result = .bool(try await db.remove(input.path))
                case "push": result = .string(try await db.push(input.path, input.value ?? .null))
                case "query":
                    // `value` is the limit: `?orderBy="n"&limitToFirst=value`.
                    guard let query = try Query(parameters: ["orderBy": #""n""#, "limitToFirst": input.value?.jsonString ?? "0"]) else {
                        throw CallableError(.invalidArgument, "No query")
                    }
                    result = try await db.get(input.path, query: query)
                case "auth": result = db.auth ?? .null
                default: throw CallableError(.invalidArgument, "Unknown op")
                }
                return .object([JSONMember("ok", result)])
            } catch let denied as PermissionDeniedError {
                return .object([JSONMember("denied", .string(denied.path)), JSONMember("description", .string(denied.description))])
            }
        }
        try functions.callable("escape") { (data: JSONValue, request, context) -> JSONValue in
            try await context.database.as(request.auth).get(try Operation(data).path)
        }
        try functions.callable("refuse") { (data: JSONValue, request, context) -> JSONValue in
            do {
                return try await context.database.as(request.auth).get(try Operation(data).path)
            } catch let denied as PermissionDeniedError {
                throw denied.callableError
            }
        }
        try functions.http(.get, "/api/items/{uid}") { _, context in
            do {
                return .json(try await context.function.database.as(context.auth).get("/items/\(context.params["uid"]!)"))
            } catch let denied as PermissionDeniedError {
                throw denied.httpError(.unauthorized)
            }
        }
        return functions
    }

    /// A server with the rules installed and two signed-up users.
    func withServer(_ body: (_ port: Int, _ a: (uid: String, token: String), _ b: (uid: String, token: String)) async throws -> Void)
        async throws
    {
        try await FunctionsLiveTests().withServer(try Self.functions(), auth: Live.auth()) { port in
            let installed = try await Live.send(port, .PUT, "/.settings/rules.json", Self.rules, headers: Live.owner)
            #expect(installed.status == 200, "\(installed.body)")
            try await body(port, try await Live.signUp(port), try await Live.signUp(port))
        }
    }

    /// Calls `act` (as `token`'s user, or signed out) and returns its result.
    static func act(_ port: Int, _ token: String?, _ operation: Operation, function: String = "act") async throws -> Live.Response {
        let body = JSONValue.object([JSONMember("data", operation.json)]).jsonString
        return try await Live.send(port, .POST, "/functions/\(function)", body, headers: Live.json + (token.map { [("Authorization", "Bearer \($0)")] } ?? []))
    }

    static func result(_ port: Int, _ token: String?, _ operation: Operation) async throws -> JSONValue {
        let r = try await act(port, token, operation)
        #expect(r.status == 200, "\(r.body)")
        return try #require(r.json?["result"])
    }

    /// The value at `path` as the admin sees it.
    static func stored(_ port: Int, _ path: String) async throws -> JSONValue {
        try #require(try await Live.send(port, .GET, "\(path).json", headers: Live.owner).json)
    }

    static func item(_ name: String) -> JSONValue { .object([JSONMember("name", .string(name))]) }

    @Test func allowedWritesLandAndForbiddenOnesThrowAndWriteNothing() async throws {
        try await withServer { port, a, b in
            // Her own item, with a server timestamp the `.validate` rule checks against `now`.
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let timestamped = JSONValue.object([
                JSONMember("name", .string("lamp")), JSONMember("at", .object([JSONMember(".sv", .string("timestamp"))])),
            ])
            var r = try await Self.result(port, a.token, Operation(op: "set", path: "/items/\(a.uid)", value: timestamped))
            #expect(r == .object([JSONMember("ok", .bool(true))]))
            let stored = try await Self.stored(port, "/items/\(a.uid)")
            #expect(stored["name"] == .string("lamp"))
            let at = try #require(stored["at"]?.doubleValue)
            #expect(at >= Double(before) && at <= Date().timeIntervalSince1970 * 1000 + 1)

            // Someone else's item: denied, naming the location only, and nothing lands.
            r = try await Self.result(port, a.token, Operation(op: "set", path: "/items/\(b.uid)", value: Self.item("mine")))
            #expect(r["denied"] == .string("/items/\(b.uid)"))
            #expect(r["description"] == .string("Permission denied: /items/\(b.uid)"))
            #expect(try await Self.stored(port, "/items/\(b.uid)") == .null)

            // `.validate` applies: a name too long, a missing name, a time in the future.
            for value in [
                Self.item("far too long a name"), .object([JSONMember("colour", .string("red"))]),
                .object([JSONMember("name", .string("x")), JSONMember("at", .int(Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000))]),
            ] {
                r = try await Self.result(port, a.token, Operation(op: "set", path: "/items/\(a.uid)", value: value))
                #expect(r["denied"] == .string("/items/\(a.uid)"), "\(value)")
            }
            #expect(try await Self.stored(port, "/items/\(a.uid)") == stored)

            // Remove: not someone else's, but her own.
            _ = try await Self.result(port, b.token, Operation(op: "set", path: "/items/\(b.uid)", value: Self.item("bike")))
            r = try await Self.result(port, a.token, Operation(op: "remove", path: "/items/\(b.uid)"))
            #expect(r["denied"] == .string("/items/\(b.uid)"))
            #expect(try await Self.stored(port, "/items/\(b.uid)") == Self.item("bike"))
            r = try await Self.result(port, a.token, Operation(op: "remove", path: "/items/\(a.uid)"))
            #expect(r["ok"] == .bool(true))
            #expect(try await Self.stored(port, "/items/\(a.uid)") == .null)

            // Push: under her own log, not under another's.
            r = try await Self.result(port, a.token, Operation(op: "push", path: "/log/\(a.uid)", value: .int(7)))
            let key = try #require(r["ok"]?.stringValue)
            #expect(try await Self.stored(port, "/log/\(a.uid)/\(key)") == .int(7))
            r = try await Self.result(port, a.token, Operation(op: "push", path: "/log/\(b.uid)", value: .int(8)))
            #expect(r["denied"] == .string("/log/\(b.uid)"))
            #expect(try await Self.stored(port, "/log/\(b.uid)") == .null)

            // An idempotency key works as for the admin database: the repeat writes nothing.
            let once = Operation(op: "set", path: "/log/\(a.uid)/once", value: .int(1), key: "k1")
            #expect(try await Self.result(port, a.token, once)["ok"] == .bool(true))
            var again = once
            again.value = .int(2)
            #expect(try await Self.result(port, a.token, again)["ok"] == .bool(false))
            #expect(try await Self.stored(port, "/log/\(a.uid)/once") == .int(1))
        }
    }

    @Test func aMultiPathUpdateWithOneForbiddenLocationWritesNothing() async throws {
        try await withServer { port, a, b in
            _ = try await Self.result(port, a.token, Operation(op: "set", path: "/items/\(a.uid)", value: Self.item("old")))
            // One location is hers, one is not: neither changes.
            var r = try await Self.result(
                port, a.token,
                Operation(op: "update", path: "/", values: ["items/\(a.uid)/name": .string("new"), "items/\(b.uid)/name": .string("stolen")]))
            #expect(r["denied"] == .string("/"))
            #expect(try await Self.stored(port, "/items/\(a.uid)") == Self.item("old"))
            #expect(try await Self.stored(port, "/items/\(b.uid)") == .null)
            // One location breaks `.validate`: neither changes either.
            r = try await Self.result(
                port, a.token,
                Operation(op: "update", path: "/", values: ["items/\(a.uid)/name": .string("much too long"), "log/\(a.uid)/n": .int(1)]))
            #expect(r["denied"] == .string("/"))
            #expect(try await Self.stored(port, "/items/\(a.uid)") == Self.item("old"))
            #expect(try await Self.stored(port, "/log/\(a.uid)") == .null)
            // All allowed: all land together.
            r = try await Self.result(
                port, a.token, Operation(op: "update", path: "/", values: ["items/\(a.uid)/name": .string("new"), "log/\(a.uid)/n": .int(1)]))
            #expect(r["ok"] == .bool(true))
            #expect(try await Self.stored(port, "/items/\(a.uid)/name") == .string("new"))
            #expect(try await Self.stored(port, "/log/\(a.uid)/n") == .int(1))
        }
    }

    @Test func readsAreCheckedByReadRules() async throws {
        try await withServer { port, a, b in
            _ = try await Live.send(port, .PUT, "/secrets/s.json", "42", headers: Live.owner)
            _ = try await Live.send(port, .PUT, "/public/p.json", "1", headers: Live.owner)
            _ = try await Self.result(port, b.token, Operation(op: "set", path: "/items/\(b.uid)", value: Self.item("bike")))
            _ = try await Self.result(port, b.token, Operation(op: "set", path: "/log/\(b.uid)/x", value: .int(3)))

            // Signed in: others' items, not others' logs, never secrets.
            #expect(try await Self.result(port, a.token, Operation(op: "get", path: "/items/\(b.uid)"))["ok"] == Self.item("bike"))
            #expect(try await Self.result(port, a.token, Operation(op: "get", path: "/log/\(b.uid)"))["denied"] == .string("/log/\(b.uid)"))
            #expect(try await Self.result(port, b.token, Operation(op: "get", path: "/log/\(b.uid)"))["ok"] == .object([JSONMember("x", .int(3))]))
            #expect(try await Self.result(port, a.token, Operation(op: "get", path: "/secrets/s"))["denied"] == .string("/secrets/s"))
            // A read above the readable locations is denied as a whole, as for a client.
            #expect(try await Self.result(port, a.token, Operation(op: "get", path: "/"))["denied"] == .string("/"))

            // Signed out (`as(nil)`): `auth != null` refuses, `.read: true` does not.
            #expect(try await Self.result(port, nil, Operation(op: "get", path: "/items/\(b.uid)"))["denied"] == .string("/items/\(b.uid)"))
            #expect(try await Self.result(port, nil, Operation(op: "get", path: "/public/p"))["ok"] == .int(1))
            #expect(try await Self.result(port, nil, Operation(op: "set", path: "/public/q", value: .int(2)))["denied"] == .string("/public/q"))
            #expect(try await Self.stored(port, "/public/q") == .null)
            #expect(try await Self.result(port, a.token, Operation(op: "set", path: "/public/q", value: .int(2)))["ok"] == .bool(true))
            #expect(try await Self.result(port, nil, Operation(op: "auth", path: "/"))["ok"] == .null)
        }
    }

    @Test func queriesAreCheckedWithTheQueryTheRulesSee() async throws {
        try await withServer { port, a, _ in
            let feed = #"{"x":{"n":3},"y":{"n":1},"z":{"n":2}}"#
            _ = try await Live.send(port, .PUT, "/feed.json", feed, headers: Live.owner)
            var r = try await Self.result(port, a.token, Operation(op: "query", path: "/feed", value: .int(2)))
            let first = try #require(r["ok"])
            #expect(first["y"] == .object([JSONMember("n", .int(1))]))
            #expect(first["z"] == .object([JSONMember("n", .int(2))]))
            #expect(first["x"] == nil)
            // A bigger page, a plain read, a signed-out caller: denied.
            r = try await Self.result(port, a.token, Operation(op: "query", path: "/feed", value: .int(3)))
            #expect(r["denied"] == .string("/feed"))
            r = try await Self.result(port, a.token, Operation(op: "get", path: "/feed"))
            #expect(r["denied"] == .string("/feed"))
            r = try await Self.result(port, nil, Operation(op: "query", path: "/feed", value: .int(2)))
            #expect(r["denied"] == .string("/feed"))
        }
    }

    @Test func theAuthVariableIsTheOneTheCallersClientGets() async throws {
        try await withServer { port, a, _ in
            let auth = try await Self.result(port, a.token, Operation(op: "auth", path: "/"))["ok"]
            #expect(auth == IDTokenClaims.authVariable(fromUnverified: a.token))
            #expect(auth?["uid"] == .string(a.uid))
            #expect(auth?["provider"] == .string("anonymous"))
            #expect(auth?["token"]?["sub"] == .string(a.uid))
        }
    }

    @Test func actingAsAKnownUidWithClaims() async throws {
        try await withServer { port, a, _ in
            let admin = JSONValue.object([JSONMember("admin", .bool(true))])
            // `as(uid:claims:)`: `auth.token` holds the claims plus `sub`, and the provider is `custom`.
            var r = try await Self.result(port, nil, Operation(op: "set", path: "/staff/note", value: .string("hi"), uid: "svc", claims: admin))
            #expect(r["ok"] == .bool(true))
            #expect(try await Self.stored(port, "/staff/note") == .string("hi"))
            r = try await Self.result(port, nil, Operation(op: "get", path: "/staff", uid: "svc", claims: admin))
            #expect(r["ok"] == .object([JSONMember("note", .string("hi"))]))
            // Without the claim, or as a real user without it: denied.
            r = try await Self.result(port, nil, Operation(op: "set", path: "/staff/note", value: .string("no"), uid: "svc"))
            #expect(r["denied"] == .string("/staff/note"))
            r = try await Self.result(port, a.token, Operation(op: "get", path: "/staff"))
            #expect(r["denied"] == .string("/staff"))
            #expect(try await Self.stored(port, "/staff/note") == .string("hi"))
            // A known uid owns its items like the signed-in user would.
            r = try await Self.result(port, nil, Operation(op: "set", path: "/items/\(a.uid)", value: Self.item("for a"), uid: a.uid))
            #expect(r["ok"] == .bool(true))
            let auth = try await Self.result(port, nil, Operation(op: "auth", path: "/", uid: "svc", claims: admin))["ok"]
            #expect(
                auth
                    == .object([
                        JSONMember("uid", .string("svc")), JSONMember("provider", .string("custom")),
                        JSONMember(
                            "token",
                            .object([
                                JSONMember("admin", .bool(true)), JSONMember("sub", .string("svc")), JSONMember("user_id", .string("svc")),
                                JSONMember("firebase", .object([JSONMember("sign_in_provider", .string("custom"))])),
                            ])),
                    ]))
        }
    }

    @Test func aDenialReachesClientsWithoutRuleInternals() async throws {
        try await withServer { port, a, b in
            _ = try await Live.send(port, .PUT, "/secrets/s.json", "42", headers: Live.owner)
            // Let out of a callable, it is PERMISSION_DENIED (the caller's fault), and nothing of the rules shows.
            var r = try await Self.act(port, a.token, Operation(op: "get", path: "/secrets/s"), function: "escape")
            #expect(r.status == 403)
            #expect(r.body == #"{"error":{"status":"PERMISSION_DENIED","message":"Permission denied"}}"#)
            // `callableError`: PERMISSION_DENIED, 403.
            r = try await Self.act(port, a.token, Operation(op: "get", path: "/secrets/s"), function: "refuse")
            #expect(r.status == 403)
            #expect(r.body == #"{"error":{"status":"PERMISSION_DENIED","message":"Permission denied"}}"#)
            // An HTTP function serving a REST API: the caller's token decides, `httpError` answers.
            _ = try await Self.result(port, b.token, Operation(op: "set", path: "/items/\(b.uid)", value: Self.item("bike")))
            r = try await Live.send(port, .GET, "/api/items/\(b.uid)", headers: [("Authorization", "Bearer \(a.token)")])
            #expect(r.status == 200)
            #expect(r.json == Self.item("bike"))
            r = try await Live.send(port, .GET, "/api/items/\(b.uid)")
            #expect(r.status == 401)
            #expect(r.body == "Permission denied")
        }
    }

    @Test func clientsSeeTheFunctionsPermittedWrites() async throws {
        try await withServer { port, a, b in
            // B listens to A's item over the REST event stream, with B's own token.
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                var listen = HTTPClientRequest(url: "http://127.0.0.1:\(port)/items/\(a.uid).json")
                listen.headers.add(name: "Accept", value: "text/event-stream")
                listen.headers.add(name: "Authorization", value: "Bearer \(b.token)")
                let response = try await client.execute(listen, timeout: .seconds(30))
                #expect(response.status == .ok)
                var body = response.body.makeAsyncIterator()
                var received = String(buffer: try #require(try await body.next()))
                #expect(received == "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n")

                // A denied write sends nothing; the permitted one arrives.
                let denied = try await Self.result(port, b.token, Operation(op: "set", path: "/items/\(a.uid)", value: Self.item("b's")))
                #expect(denied["denied"] != nil)
                _ = try await Self.result(port, a.token, Operation(op: "set", path: "/items/\(a.uid)", value: Self.item("lamp")))
                received = ""
                let expected = "event: put\ndata: {\"path\":\"/\",\"data\":{\"name\":\"lamp\"}}\n\n"
                while received.count < expected.count, let chunk = try await body.next() { received += String(buffer: chunk) }
                #expect(received == expected)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()

            // And a plain REST read with a user's token.
            let r = try await Live.send(port, .GET, "/items/\(a.uid).json", headers: [("Authorization", "Bearer \(b.token)")])
            #expect(r.json == Self.item("lamp"))
        }
    }
}
