import Foundation
import HearthCore
import HearthFunctions
import HearthTesting
import HTTPTypes
import NIOHTTP1
import Testing

/// The functions admin endpoints the console reads: the registered functions with their triggers and schedules, the
/// recent runs of every kind, and running a schedule now (`GET /.hearth/functions`,
/// `POST /.hearth/functions/schedules/NAME:run`).
@Suite("Functions admin API for the console")
struct FunctionsConsoleAPITests {
    typealias Live = FunctionsLiveTests

    /// A trigger that fails while `/switch` is not true (one attempt, so it is dead at once), a callable, an HTTP
    /// function and a schedule that never comes due during the test.
    func functions() throws -> Functions {
        var functions = Functions()
        try functions.onValueCreated("/orders/{id}", name: "ship", retry: .never) { event, context in
            guard try await context.database.get("/switch") == .bool(true) else { throw FunctionsError("switched off") }
            try await context.database.set("/shipped/\(event.params["id"]!)", .bool(true))
        }
        try functions.callable("hello") { (_: JSONValue, _, _) -> JSONValue in .string("hi") }
        try functions.http(.get, "/hooks/ping") { _, _ in HTTPFunctionResponse(status: .ok, body: Array("pong".utf8)) }
        try functions.schedule("report", "0 6 1 1 *", timeZone: TimeZone(identifier: "Europe/Berlin")!) { event, context in
            try await context.database.set("/report", .string(event.jobName))
        }
        return functions
    }

    /// The recent runs, newest first.
    func runs(_ port: Int) async throws -> [JSONValue] {
        let r = try await Live.send(port, .GET, "/.hearth/functions", headers: Live.owner)
        guard case .array(let runs) = r.json?["runs"] else { return [] }
        return runs
    }

    /// Polls the recent runs until one matches (or 10 s passed).
    func run(_ port: Int, where match: (JSONValue) -> Bool) async throws -> JSONValue? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let run = try await runs(port).first(where: match) { return run }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func listsFunctionsWithTheirTriggersAndSchedules() async throws {
        try await Live().withServer(try functions()) { port in try await checkList(port) }
    }

    /// The list's functions, triggers and schedule, and that it is admin only.
    func checkList(_ port: Int) async throws {
        let r = try await Live.send(port, .GET, "/.hearth/functions", headers: Live.owner)
        #expect(r.status == 200)
        guard case .array(let list) = r.json?["functions"] else {
            Issue.record("no functions list: \(r.body)")
            return
        }
        let byName = Dictionary(uniqueKeysWithValues: list.compactMap { f in f["name"]?.stringValue.map { ($0, f) } })
        #expect(byName["ship"]?["kind"] == .string("database"))
        #expect(byName["ship"]?["trigger"] == .object([
            JSONMember("event", .string("created")), JSONMember("path", .string("/orders/{id}")), JSONMember("namespace", .string("demo")),
        ]))
        #expect(byName["hello"]?["trigger"]?["path"] == .string("/functions/hello"))
        #expect(byName["GET /hooks/ping"]?["kind"] == .string("http"))
        let report = try #require(byName["report"])
        #expect(report["schedule"] == .string("0 6 1 1 *"))
        #expect(report["timeZone"] == .string("Europe/Berlin"))
        let next = try #require(report["nextRun"].flatMap { if case .int(let n) = $0 { n } else { nil } })
        let expected = try Schedule("0 6 1 1 *", timeZone: TimeZone(identifier: "Europe/Berlin")!).nextDate(after: Date())!
        #expect(abs(Double(next) / 1000 - expected.timeIntervalSince1970) < 1)
        #expect(report["lastRun"] == nil)
        // Admin only.
        #expect(try await Live.send(port, .GET, "/.hearth/functions").status == 401)
        #expect(try await Live.send(port, .POST, "/.hearth/functions/schedules/report:run").status == 401)
    }

    @Test func logsRunsOfEveryKindNewestFirstAndRunsASchedule() async throws {
        try await Live().withServer(try functions()) { port in try await checkRuns(port) }
    }

    /// Runs of a trigger (dead, then retried), a callable, an HTTP function and a schedule run now.
    func checkRuns(_ port: Int) async throws {
        // A trigger that fails is logged as dead (one attempt); after a retry with the switch on, as ok.
        _ = try await Live.send(port, .PUT, "/orders/a.json", "1", headers: Live.owner)
        let dead = try #require(try await run(port) { $0["function"] == .string("ship") })
        #expect(dead["outcome"] == .string("dead"))
        #expect(dead["error"]?.stringValue?.contains("switched off") == true)
        #expect(dead["attempt"] == .int(1))
        let event = try #require(dead["trigger"]?.stringValue)
        #expect(event.hasPrefix("db:demo/"))
        _ = try await Live.send(port, .PUT, "/switch.json", "true", headers: Live.owner)
        #expect(try await Live.send(port, .POST, "/.hearth/functions/deadLetters/\(event):retry", headers: Live.owner).status == 200)
        let ok = try #require(try await run(port) { $0["trigger"]?.stringValue == event && $0["outcome"] == .string("ok") })
        #expect(ok["durationMs"] != nil)

        // Callables and HTTP functions are logged with the request that started them.
        _ = try await Live.send(port, .POST, "/functions/hello", #"{"data":null}"#, headers: Live.json)
        _ = try await Live.send(port, .GET, "/hooks/ping")
        let latest = try await runs(port)
        #expect(latest.first?["function"] == .string("GET /hooks/ping"))
        #expect(latest.first?["trigger"] == .string("GET /hooks/ping"))
        #expect(latest.dropFirst().first?["function"] == .string("hello"))
        #expect(latest.dropFirst().first?["trigger"] == .string("POST /functions/hello"))

        // Run now: the job runs with its context, is logged, and its last run is filled in.
        let r = try await Live.send(port, .POST, "/.hearth/functions/schedules/report:run", headers: Live.owner)
        #expect(r.status == 200)
        #expect(r.json?["outcome"] == .string("ok"))
        #expect(try await Live.send(port, .GET, "/report.json", headers: Live.owner).body == #""report""#)
        #expect(try await runs(port).first?["trigger"] == .string("run now"))
        let list = try await Live.send(port, .GET, "/.hearth/functions", headers: Live.owner).json
        guard case .array(let functions) = list?["functions"] else { throw FunctionsError("no functions list") }
        #expect(functions.first { $0["name"] == .string("report") }?["lastRun"] != nil)
        #expect(try await Live.send(port, .POST, "/.hearth/functions/schedules/nope:run", headers: Live.owner).status == 404)
    }

    @Test func theRunLogKeepsTheLatestRunsOnly() {
        let log = FunctionRunLog(capacity: 3)
        for i in 0..<5 { log.record(FunctionRun(function: "f\(i)", trigger: "t", startedAt: Int64(i), durationMs: 1, outcome: .ok)) }
        #expect(log.recent.map(\.function) == ["f4", "f3", "f2"])
        #expect(log.lastStart(of: "f3") == 3)
        #expect(log.lastStart(of: "f0") == nil)
    }
}
