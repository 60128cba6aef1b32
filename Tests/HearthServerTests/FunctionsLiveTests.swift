import AsyncHTTPClient
import Foundation
import HearthAuth
import HearthCore
import HearthFunctions
@testable import HearthServer
import HearthSQLite
import HearthStorage
import HearthStore
import HearthWire
import HearthTesting
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import Testing

/// Server functions inside a running server: triggers from database, auth and storage changes,
/// callable functions on Firebase's callable protocol, and plain HTTP functions.
@Suite("Functions in a live server")
struct FunctionsLiveTests {
    /// What the functions under test saw.
    final class Seen: Sendable {
        let items = Mutex<[String]>([])
        func add(_ s: String) { items.withLock { $0.append(s) } }
        var all: [String] { items.withLock { $0 } }

        func wait(for count: Int) async throws -> [String] {
            let deadline = ContinuousClock.now + .seconds(10)
            while all.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            return all
        }
    }

    struct EchoInput: Codable, Sendable {
        var text: String
        var times: Int
    }

    struct EchoOutput: Codable, Sendable {
        var text: String
        var caller: String?
    }

    struct Response: Sendable {
        var status: Int
        var body: String
        var headers: HTTPHeaders
        var json: JSONValue? { try? JSONValue.parse(Array(body.utf8)) }
    }

    static func send(
        _ port: Int, _ method: HTTPMethod, _ path: String, _ body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Response {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Response(status: Int(response.status.code), body: String(buffer: bytes), headers: response.headers)
    }

    static let json = [("Content-Type", "application/json")]
    static let owner = [("Authorization", "Bearer owner")]

    static func auth() -> AuthService {
        AuthService(projectID: "demo", store: MemoryAccountStore(), key: AuthRouterTests.key, hasher: PasswordHasher(rounds: 1 << 4))
    }

    static func signUp(_ port: Int, email: String? = nil) async throws -> (uid: String, token: String) {
        let body = email.map { #"{"email":"\#($0)","password":"secret1","returnSecureToken":true}"# } ?? #"{"returnSecureToken":true}"#
        let r = try await send(port, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body, headers: json)
        let value = try #require(r.json)
        return (try #require(value["localId"]?.stringValue), try #require(value["idToken"]?.stringValue))
    }

    /// The dead letters of the `demo` database's trigger queue, polled until there are at least `count`
    /// (or 60 s passed: a chain of 17 events in a row took 12.8–24 s under the full suite's load on 2 cores).
    static func deadLetters(_ port: Int, atLeast count: Int) async throws -> [JSONValue] {
        var dead: [JSONValue] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while dead.count < count, ContinuousClock.now < deadline {
            let r = try await send(port, .GET, "/.hearth/functions/deadLetters?queue=db:demo", headers: owner)
            if case .array(let items) = r.json?["deadLetters"] { dead = items }
            if dead.count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
        return dead
    }

    func withServer(
        _ functions: Functions, auth: AuthService? = nil, storage: StorageService? = nil, _ body: (Int) async throws -> Void
    ) async throws {
        let server = LiveServer(stores: MemoryStoreFactory(), auth: auth, storage: storage, functions: functions)
        let port = try await server.start()
        do {
            try await body(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    // MARK: Callable protocol

    func callables() throws -> Functions {
        var functions = Functions()
        try functions.callable("echo") { (input: EchoInput, request, _) -> EchoOutput in
            EchoOutput(text: String(repeating: input.text, count: input.times), caller: request.auth?.uid)
        }
        try functions.callable("refuse") { (_: JSONValue, _, _) -> JSONValue in
            throw CallableError(.alreadyExists, "Taken", details: .object([JSONMember("field", .string("name"))]))
        }
        try functions.callable("crash") { (_: JSONValue, _, _) -> JSONValue in
            throw FunctionsError("secret internal detail")
        }
        return functions
    }

    @Test func callableFunctionsSpeakFirebasesProtocol() async throws {
        try await withServer(try callables(), auth: Self.auth()) { port in
            var r = try await Self.send(port, .POST, "/functions/echo", #"{"data":{"text":"ab","times":2}}"#, headers: Self.json)
            #expect(r.status == 200)
            #expect(r.body == #"{"result":{"text":"abab"}}"#)
            #expect(r.headers.first(name: "Access-Control-Allow-Origin") == "*")

            // The caller's verified ID token reaches the function.
            let user = try await Self.signUp(port)
            r = try await Self.send(
                port, .POST, "/functions/echo", #"{"data":{"text":"x","times":1}}"#, headers: Self.json + [("Authorization", "Bearer \(user.token)")])
            #expect(r.json?["result"]?["caller"]?.stringValue == user.uid)
            // A token that does not verify is refused, not ignored.
            r = try await Self.send(port, .POST, "/functions/echo", #"{"data":{"text":"x","times":1}}"#, headers: Self.json + [("Authorization", "Bearer nope")])
            #expect(r.status == 401)
            #expect(r.body == #"{"error":{"status":"UNAUTHENTICATED","message":"Unauthenticated"}}"#)

            // The emulator's URL shape: /PROJECT/REGION/NAME.
            r = try await Self.send(port, .POST, "/demo/us-central1/echo", #"{"data":{"text":"e","times":3}}"#, headers: Self.json)
            #expect(r.body == #"{"result":{"text":"eee"}}"#)

            // Input that does not decode.
            r = try await Self.send(port, .POST, "/functions/echo", #"{"data":{"text":"x"}}"#, headers: Self.json)
            #expect(r.status == 400)
            #expect(r.json?["error"]?["status"]?.stringValue == "INVALID_ARGUMENT")
            #expect(r.json?["error"]?["message"]?.stringValue?.contains("times") == true)
            // A number that does not fit its field names the field (Foundation alone says "not valid JSON" on Linux).
            r = try await Self.send(port, .POST, "/functions/echo", #"{"data":{"text":"x","times":1.5}}"#, headers: Self.json)
            #expect(r.status == 400)
            let message = r.json?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("at times") && message.contains("1.5"), "\(message)")

            // Requests that are not the protocol: 400 Bad Request.
            for (method, body, headers) in [
                (HTTPMethod.GET, nil as String?, Self.json), (.POST, #"{"data":1}"#, [("Content-Type", "text/plain")]),
                (.POST, #"{"nodata":1}"#, Self.json), (.POST, "{not json", Self.json),
            ] {
                r = try await Self.send(port, method, "/functions/echo", body, headers: headers)
                #expect(r.status == 400)
                #expect(r.body == #"{"error":{"status":"INVALID_ARGUMENT","message":"Bad Request"}}"#)
            }

            // A CallableError picks the status and carries details; anything else is INTERNAL, without its text.
            r = try await Self.send(port, .POST, "/functions/refuse", #"{"data":null}"#, headers: Self.json)
            #expect(r.status == 409)
            #expect(r.body == #"{"error":{"status":"ALREADY_EXISTS","message":"Taken","details":{"field":"name"}}}"#)
            r = try await Self.send(port, .POST, "/functions/crash", #"{"data":null}"#, headers: Self.json)
            #expect(r.status == 500)
            #expect(r.body == #"{"error":{"status":"INTERNAL","message":"INTERNAL"}}"#)
            #expect(!r.body.contains("secret"))

            r = try await Self.send(port, .POST, "/functions/missing", #"{"data":null}"#, headers: Self.json)
            #expect(r.status == 404)
            #expect(r.json?["error"]?["status"]?.stringValue == "NOT_FOUND")

            // CORS preflight for web clients.
            r = try await Self.send(port, .OPTIONS, "/functions/echo")
            #expect(r.status == 204)
            #expect(r.headers.first(name: "Access-Control-Allow-Methods")?.contains("POST") == true)
        }
    }

    @Test func callableErrorCodesMapToFirebasesHTTPStatuses() {
        let expected: [CallableError.Code: Int] = [
            .cancelled: 499, .unknown: 500, .invalidArgument: 400, .deadlineExceeded: 504, .notFound: 404, .alreadyExists: 409,
            .permissionDenied: 403, .resourceExhausted: 429, .failedPrecondition: 400, .aborted: 409, .outOfRange: 400,
            .unimplemented: 501, .internal: 500, .unavailable: 503, .dataLoss: 500, .unauthenticated: 401,
        ]
        #expect(Set(expected.keys) == Set(CallableError.Code.allCases))
        for (code, status) in expected { #expect(code.httpStatus == status, "\(code)") }
    }

    // MARK: HTTP functions

    @Test func httpFunctionsAnswerTheirRoutesAndLeaveTheRestToTheDatabase() async throws {
        var functions = Functions()
        try functions.http(.get, "/hooks/{kind}/status") { request, context in
            let admin = context.isAdmin ? "admin" : "guest"
            return HTTPFunctionResponse(
                status: .ok, headers: [.contentType: "text/plain"], body: Array("\(context.params["kind"]!) \(admin) \(context.auth?.uid ?? "-")".utf8))
        }
        try functions.http(.post, "/hooks/fail") { _, _ in throw HTTPFunctionError(.init(code: 402), message: "pay first") }
        try await withServer(functions) { port in
            var r = try await Self.send(port, .GET, "/hooks/lamp/status")
            #expect(r.status == 200)
            #expect(r.body == "lamp guest -")
            r = try await Self.send(port, .GET, "/hooks/lamp/status", headers: Self.owner)
            #expect(r.body == "lamp admin -")
            r = try await Self.send(port, .POST, "/hooks/fail")
            #expect(r.status == 402)
            #expect(r.body == "pay first")
            // Another method or path is not the function's: the database answers as before.
            r = try await Self.send(port, .POST, "/hooks/lamp/status")
            #expect(r.status == 404)
            r = try await Self.send(port, .PUT, "/hooks/lamp/status.json", "1", headers: Self.owner)
            #expect(r.status == 200)
            r = try await Self.send(port, .GET, "/hooks/lamp/status.json", headers: Self.owner)
            #expect(r.body == "1")
        }
    }

    /// A route registered with a `.json` ending takes that one path (its method) from the database's REST API; every
    /// other `….json` path stays the database's.
    @Test func anHTTPFunctionCanServeAPathEndingInJSON() async throws {
        var functions = Functions()
        try functions.http(.get, "/api/v1/schema.json") { _, _ in .json(.object([JSONMember("openapi", .string("3.0.3"))])) }
        #expect(throws: FunctionsError.self) { try functions.http(.get, "/api/{name}.json") { _, _ in HTTPFunctionResponse(status: .ok) } }
        try await withServer(functions) { port in
            var r = try await Self.send(port, .GET, "/api/v1/schema.json")
            #expect(r.status == 200 && r.body == #"{"openapi":"3.0.3"}"#)
            _ = try await Self.send(port, .PUT, "/api/v1/other.json", "2", headers: Self.owner)
            r = try await Self.send(port, .GET, "/api/v1/other.json", headers: Self.owner)
            #expect(r.body == "2")
            r = try await Self.send(port, .GET, "/api/v1/schema", headers: Self.owner)
            #expect(r.status == 404, "without .json the route is not the function's")
        }
    }

    // MARK: Triggers

    @Test func databaseTriggersSeeParamsAndBothValuesAndWriteWithAdminAccess() async throws {
        let seen = Seen()
        var functions = Functions()
        try functions.onValueWritten("/rooms/{room}/members/{uid}") { event, context in
            seen.add("\(event.params["room"]!) \(event.params["uid"]!) \(event.before.jsonString) -> \(event.after.jsonString) #\(event.attempt)")
            let count = try await context.database.get("/rooms/\(event.params["room"]!)/members").members.count
            try await context.database.set("/counts/\(event.params["room"]!)", .int(Int64(count)))
        }
        try await withServer(functions) { port in
            _ = try await Self.send(port, .PUT, "/rooms/r1/members/a.json", #"{"role":"host"}"#, headers: Self.owner)
            _ = try await Self.send(port, .PATCH, "/rooms/r1/members/a.json", #"{"role":"guest"}"#, headers: Self.owner)
            _ = try await Self.send(port, .PUT, "/rooms/r1/members/b.json", "true", headers: Self.owner)
            _ = try await Self.send(port, .DELETE, "/rooms/r1/members/a.json", headers: Self.owner)
            let events = try await seen.wait(for: 4)
            #expect(
                events == [
                    #"r1 a null -> {"role":"host"} #1"#, #"r1 a {"role":"host"} -> {"role":"guest"} #1"#, "r1 b null -> true #1",
                    #"r1 a {"role":"guest"} -> null #1"#,
                ])
            var count = ""
            let deadline = ContinuousClock.now + .seconds(5)
            while count != "1", ContinuousClock.now < deadline {
                count = try await Self.send(port, .GET, "/counts/r1.json", headers: Self.owner).body
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(count == "1")
        }
    }

    /// A trigger that keeps changing the location it watches (Firebase's classic endless loop) runs
    /// for a chain of `maxTriggerDepth` events; the next one is kept as a dead letter saying why, and
    /// nothing runs after it. A chain that settles (the trigger's second write changes nothing) is
    /// untouched.
    @Test func aTriggerThatKeepsRewritingItsOwnLocationIsStopped() async throws {
        let seen = Seen()
        var functions = Functions()
        try functions.onValueWritten("/loop/{id}", retry: .never) { event, context in
            guard case .int(let n) = event.after else { return }
            seen.add("\(n)")
            try await context.database.set("/loop/\(event.params["id"]!)", .int(n + 1))
        }
        try functions.onValueWritten("/names/{id}", retry: .never) { event, context in
            // Settles: lower-cases once; the second run writes the same value, which fires nothing.
            guard let name = event.after.stringValue else { return }
            seen.add("name \(name)")
            try await context.database.set("/names/\(event.params["id"]!)", .string(name.lowercased()))
        }
        try await withServer(functions) { port in
            _ = try await Self.send(port, .PUT, "/names/a.json", #""Ann""#, headers: Self.owner)
            _ = try await Self.send(port, .PUT, "/loop/a.json", "0", headers: Self.owner)
            let dead = try await Self.deadLetters(port, atLeast: 1)
            try #require(dead.count == 1, "one dead letter")
            let error = dead[0]["error"]?.stringValue ?? ""
            #expect(error.contains("trigger number 17 of a chain (the limit is 16)"), "\(dead[0])")
            #expect(dead[0]["payload"]?["depth"] == .int(17))
            #expect(dead[0]["payload"]?["after"] == .int(16))
            try await Task.sleep(for: .milliseconds(300))
            let runs = seen.all.filter { !$0.hasPrefix("name ") }
            #expect(runs == (0..<16).map { "\($0)" }, "the function ran for the first 16 events only")
            #expect(try await Self.send(port, .GET, "/loop/a.json", headers: Self.owner).body == "16")
            #expect(seen.all.filter { $0.hasPrefix("name ") } == ["name Ann", "name ann"])
            #expect(try await Self.send(port, .GET, "/names/a.json", headers: Self.owner).body == #""ann""#)
        }
    }

    /// The depth goes with every way a function writes: a multi-path update, a transaction, an atomic write, a push
    /// below the watched location, and a write with an idempotency key each loop until the 17th event.
    @Test func everyWayAFunctionWritesCarriesTheDepth() async throws {
        var functions = Functions()
        try functions.onValueWritten("/viaUpdate/{id}", retry: .never) { event, context in
            guard case .int(let n) = event.after else { return }
            try await context.database.update("/viaUpdate", [event.params["id"]!: .int(n + 1)])
        }
        try functions.onValueWritten("/viaTransaction/{id}", retry: .never) { event, context in
            try await context.database.transaction("/viaTransaction/\(event.params["id"]!)") { current in
                guard case .int(let n) = current else { return nil }
                return .int(n + 1)
            }
        }
        try functions.onValueWritten("/viaAtomic/{id}", retry: .never) { event, context in
            let id = event.params["id"]!
            try await context.database.atomically { data, writes in
                guard case .int(let n) = try data.value("viaAtomic/\(id)") else { return }
                writes["viaAtomic/\(id)"] = .int(n + 1)
            }
        }
        try functions.onValueCreated("/viaPush/{id}", retry: .never) { _, context in
            _ = try await context.database.push("/viaPush", .bool(true))
        }
        try functions.onValueWritten("/viaKey/{id}", retry: .never) { event, context in
            guard case .int(let n) = event.after else { return }
            try await context.database.set("/viaKey/\(event.params["id"]!)", .int(n + 1), idempotencyKey: event.id)
        }
        try await withServer(functions) { port in
            for (path, value) in [("viaUpdate/a", "0"), ("viaTransaction/a", "0"), ("viaAtomic/a", "0"), ("viaPush/first", "true"), ("viaKey/a", "0")] {
                _ = try await Self.send(port, .PUT, "/\(path).json", value, headers: Self.owner)
            }
            let dead = try await Self.deadLetters(port, atLeast: 5)
            let stopped = dead.compactMap { $0["payload"]?["path"]?.stringValue?.split(separator: "/").first.map(String.init) }.sorted()
            #expect(stopped == ["viaAtomic", "viaKey", "viaPush", "viaTransaction", "viaUpdate"], "\(dead)")
            let depths = Set(dead.map { $0["payload"]?["depth"] })
            #expect(depths == [.int(17)])
            for path in ["viaUpdate/a", "viaTransaction/a", "viaAtomic/a", "viaKey/a"] {
                #expect(try await Self.send(port, .GET, "/\(path).json", headers: Self.owner).body == "16", "\(path)")
            }
            let pushed = try await Self.send(port, .GET, "/viaPush.json?shallow=true", headers: Self.owner).json
            guard case .object(let children) = pushed else {
                Issue.record("no children under /viaPush")
                return
            }
            #expect(children.count == 17, "the first child and 16 pushes")
        }
    }

    /// An event queued by a version that recorded no depth runs, as the first of its chain: the
    /// chain it starts still stops 16 events later.
    @Test func anEventQueuedWithoutADepthCountsAsTheFirstOfItsChain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-old-event-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteStore(path: folder + "/demo.sqlite", durability: .normal)
        let oldPayload = Array(#"{"path":"/old/a","before":null,"after":15,"time":1700000000000}"#.utf8)
        _ = try await store.write { try $0.enqueueEvent(function: "chain", payload: oldPayload, at: 0) }
        try await store.close()

        let seen = Seen()
        var functions = Functions()
        try functions.onValueWritten("/old/{id}", name: "chain", retry: .never) { event, context in
            guard case .int(let n) = event.after else { return }
            seen.add("\(n)")
            try await context.database.set("/old/a", .int(n + 1))
        }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: folder, durability: .normal), functions: functions)
        let port = try await server.start()
        do {
            let dead = try await Self.deadLetters(port, atLeast: 1)
            #expect(seen.all == (15..<31).map { "\($0)" }, "the old event ran as depth 1, then 15 more")
            #expect(dead.count == 1)
            #expect(dead.first?["payload"]?["depth"] == .int(17))
            #expect(dead.first?["payload"]?["after"] == .int(31))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func authTriggersRunForCreatedAndDeletedAccountsWithoutPasswordHashes() async throws {
        let seen = Seen()
        var functions = Functions()
        try functions.onUserCreated { event, _ in
            seen.add("created \(event.uid) \(event.user.email ?? "-") hash:\(event.user.passwordHash == nil ? "no" : "yes")")
        }
        try functions.onUserDeleted { event, _ in seen.add("deleted \(event.uid)") }
        try await withServer(functions, auth: Self.auth()) { port in
            let user = try await Self.signUp(port, email: "ann@example.com")
            var events = try await seen.wait(for: 1)
            #expect(events == ["created \(user.uid) ann@example.com hash:no"])
            // Signing in again creates nothing.
            _ = try await Self.send(
                port, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                #"{"email":"ann@example.com","password":"secret1","returnSecureToken":true}"#, headers: Self.json)
            let r = try await Self.send(port, .POST, "/identitytoolkit.googleapis.com/v1/accounts:delete?key=k", #"{"idToken":"\#(user.token)"}"#, headers: Self.json)
            #expect(r.status == 200)
            events = try await seen.wait(for: 2)
            #expect(events == ["created \(user.uid) ann@example.com hash:no", "deleted \(user.uid)"])
        }
    }

    @Test func storageTriggersRunWhenObjectsAreFinalizedReplacedAndDeleted() async throws {
        let seen = Seen()
        var functions = Functions()
        try functions.onObjectFinalized { event, _ in seen.add("finalized \(event.name) \(event.object.size)") }
        try functions.onObjectDeleted { event, _ in seen.add("deleted \(event.name) \(event.object.size)") }
        try await withServer(functions, storage: try await StorageRouterTests.storage()) { port in
            let upload = "/upload/storage/v1/b/demo.appspot.com/o?uploadType=media&name=p%2Fa.txt"
            _ = try await Self.send(port, .POST, upload, "hello", headers: Self.owner + [("Content-Type", "text/plain")])
            _ = try await Self.send(port, .POST, upload, "hello again", headers: Self.owner + [("Content-Type", "text/plain")])
            _ = try await Self.send(port, .DELETE, "/storage/v1/b/demo.appspot.com/o/p%2Fa.txt", headers: Self.owner)
            let events = try await seen.wait(for: 4)
            #expect(Set(events) == ["finalized p/a.txt 5", "deleted p/a.txt 5", "finalized p/a.txt 11", "deleted p/a.txt 11"])
            #expect(events.first == "finalized p/a.txt 5")
            #expect(events.last == "deleted p/a.txt 11")
        }
    }

    // MARK: Scheduled jobs

    /// A fresh data folder whose `demo` database records that `job` last ran `minutesAgo` minutes ago (on the minute);
    /// returns the folder and that time in milliseconds.
    private func dataFolder(lastRunOf job: String, minutesAgo: Int64) async throws -> (String, Int64) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-schedule-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: folder + "/demo.sqlite", durability: .normal)
        let lastRun = (Int64(Date().timeIntervalSince1970) / 60 - minutesAgo) * 60_000
        try await store.write { try $0.setSetting("schedule:\(job)", String(lastRun)) }
        try await store.close()
        return (folder, lastRun)
    }

    /// SIGTERM (a deploy) while a job runs: the job finishes, not cancelled, and the server waits for it, as
    /// docs/scheduling.md promises. (The functions service used to cancel it with the trigger dispatchers.)
    @Test func aRunningScheduledJobFinishesOnGracefulShutdown() async throws {
        // A missed minute, so the job runs (catches up) as soon as the server starts.
        let (folder, _) = try await dataFolder(lastRunOf: "slow", minutesAgo: 2)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let seen = Seen()
        var functions = Functions()
        try functions.schedule("slow", "* * * * *") { _, _ in
            seen.add("started")
            while !Task.isShuttingDownGracefully, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            try? await Task.sleep(for: .milliseconds(200))  // still working after the signal
            seen.add(Task.isCancelled ? "cancelled" : "finished")
        }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: folder, durability: .normal), functions: functions)
        _ = try await server.start()
        _ = try await seen.wait(for: 1)
        await server.stop()
        let events = try await seen.wait(for: 2)
        #expect(events == ["started", "finished"])
    }

    @Test func aScheduledJobMissedDuringDowntimeCatchesUpOnceAtStartWithItsContext() async throws {
        // The job last ran five minutes ago (as the server records it), then the server was down.
        let (folder, fiveMinutesAgo) = try await dataFolder(lastRunOf: "tick", minutesAgo: 5)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let seen = Seen()
        var functions = Functions()
        try functions.schedule("tick", "* * * * *") { event, context in
            seen.add("\(event.jobName) catchUp:\(event.isCatchUp) missed:\(event.missedRuns >= 4)")
            try await context.database.set("/ticks/last", .int(Int64(event.scheduledTime.timeIntervalSince1970)))
        }
        let server = LiveServer(stores: SQLiteStoreFactory(folder: folder, durability: .normal), functions: functions)
        let port = try await server.start()
        do {
            let events = try await seen.wait(for: 1)
            #expect(events.first == "tick catchUp:true missed:true")
            var last = ""
            let deadline = ContinuousClock.now + .seconds(5)
            while last == "" || last == "null", ContinuousClock.now < deadline {
                last = try await Self.send(port, .GET, "/ticks/last.json", headers: Self.owner).body
                try await Task.sleep(for: .milliseconds(20))
            }
            // The catch-up run is for the latest missed minute, and that start was recorded.
            let scheduled = try #require(Int64(last))
            #expect(scheduled * 1000 > fiveMinutesAgo)
            await server.stop()
            let reopened = try SQLiteStore(path: folder + "/demo.sqlite", durability: .normal)
            let recorded = try await reopened.snapshot { try $0.setting("schedule:tick") }
            try await reopened.close()
            #expect(recorded.flatMap { Int64($0) } == scheduled * 1000)
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func scheduleRegistrationReportsCronErrors() throws {
        var functions = Functions()
        #expect(throws: FunctionsError.self) { try functions.schedule("bad", "61 * * * *") { _, _ in } }
        do {
            try functions.schedule("bad", "0 0 30 2 *") { _, _ in }
            Issue.record("an impossible schedule was accepted")
        } catch {
            #expect(error.message.hasPrefix("Schedule \"bad\": "))
        }
        try functions.schedule("hourly", "@hourly", timeZone: TimeZone(identifier: "Europe/Berlin")!, missedRuns: .skip) { _, _ in }
        #expect(throws: FunctionsError.self) { try functions.schedule("hourly", "@daily") { _, _ in } }
    }

    // MARK: Registration

    @Test func registrationRefusesWhatCannotWork() throws {
        var functions = Functions()
        try functions.onValueCreated("/a/{id}") { _, _ in }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/a/{id}") { _, _ in } }  // same default name
        try functions.onValueCreated("/a/{id}", name: "second") { _, _ in }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/") { _, _ in } }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/a/{x-y}") { _, _ in } }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/a/{id}/{id}") { _, _ in } }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/a.b/{id}") { _, _ in } }
        #expect(throws: FunctionsError.self) { try functions.onValueCreated("/a/{id}", namespace: "no/pe") { _, _ in } }
        #expect(throws: FunctionsError.self) { try functions.callable("bad name") { (_: JSONValue, _, _) in .null } }
        #expect(throws: FunctionsError.self) { try functions.http(.get, "/") { _, _ in HTTPFunctionResponse(status: .ok) } }
        #expect(throws: FunctionsError.self) { try functions.onUserCreated(name: "second") { _, _ in } }
    }

    @Test func retryBackoffDoublesUpToItsCapWithJitter() {
        let policy = RetryPolicy(maxAttempts: 10, initialBackoff: .seconds(1), maxBackoff: .seconds(8))
        for (attempts, base) in [(1, 1000.0), (2, 2000), (3, 4000), (4, 8000), (9, 8000)] {
            for _ in 0..<20 {
                let wait = Double(policy.backoffMillis(afterAttempts: attempts))
                #expect(wait >= base * 0.8 - 1 && wait <= base * 1.2 + 1, "attempt \(attempts): \(wait)")
            }
        }
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }
}

extension JSONValue {
    fileprivate var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    fileprivate var members: [JSONMember] {
        if case .object(let m) = self { return m }
        return []
    }
}
