import Foundation
import HearthCore
import HearthDatabase
import HearthFunctions
import Hummingbird

extension FunctionsRuntime {
    /// The functions admin endpoints the console reads (admin only; ``admin(_:controller:)`` checked the credential):
    ///
    /// - `GET /.hearth/functions` → `{"functions": [...], "runs": [...]}`. Each function is
    ///   `{"name", "kind", "trigger"}` (kind `database`, `auth`, `storage`, `callable`, `http` or `schedule`; trigger
    ///   `{"event","path","namespace"}`, `{"event"}`, `{"method","path"}` or `{"cron","timeZone","missedRuns"}`), and a
    ///   schedule also has `"schedule"` (its cron expression), `"timeZone"`, `"nextRun"` (ms) and `"lastRun"` (ms: the
    ///   later of its last recorded tick and its latest run in the log). `runs` are the last 200 runs **on this node**,
    ///   in memory (none survive a restart), newest first: `{"function", "trigger", "startedAt" (ms), "durationMs",
    ///   "outcome": "ok"|"error"|"retry"|"dead", "error"?, "attempt"?}`. A trigger's `trigger` is its event's id,
    ///   `QUEUE/ID` as in the dead-letter API; a callable's or HTTP function's is the request's method and path; a
    ///   schedule's says which tick (or `run now`).
    /// - `POST /.hearth/functions/schedules/NAME:run` runs the scheduled job `NAME` now, with the context its ticks get,
    ///   logged as a run, without moving its schedule → `{"outcome", "durationMs", "error"?}` once it finished; 404 for
    ///   an unknown name, 409 while the job is running.
    ///
    /// Nil for any other path.
    func console(_ request: Request, rest: Substring, controller: DatabaseController) async throws -> Response? {
        if rest.isEmpty || rest == "/" {
            guard request.method == .get else { return nil }
            return Self.json(try await catalog(controller: controller), status: .ok)
        }
        let prefix = "/schedules/", suffix = ":run"
        guard rest.hasPrefix(prefix), rest.hasSuffix(suffix), request.method == .post else { return nil }
        let encoded = String(rest.dropFirst(prefix.count).dropLast(suffix.count))
        let name = encoded.removingPercentEncoding ?? encoded
        switch await runScheduleNow(name, database: controller.service) {
        case .unknown:
            return Self.json(.object([JSONMember("error", .string("No scheduled job named \"\(name)\""))]), status: .notFound)
        case .busy:
            return Self.json(.object([JSONMember("error", .string("\"\(name)\" is running already; try again when it finished"))]), status: .conflict)
        case .ran(let run):
            var members = [JSONMember("outcome", .string(run.outcome.rawValue)), JSONMember("durationMs", .double(Self.rounded(run.durationMs)))]
            if let error = run.error { members.append(JSONMember("error", .string(error))) }
            return Self.json(.object(members), status: .ok)
        }
    }

    /// The registered functions (with their schedules' next and last runs) and the recent runs.
    private func catalog(controller: DatabaseController) async throws -> JSONValue {
        let now = clock()
        let state = NamespaceScheduleState(registry: controller.service.registry, namespace: defaultNamespace)
        var items: [JSONValue] = []
        for summary in functions.summaries(defaultNamespace: defaultNamespace) {
            var members = [
                JSONMember("name", .string(summary.name)), JSONMember("kind", .string(summary.kind)), JSONMember("trigger", summary.trigger),
            ]
            if let schedule = summary.schedule {
                members.append(JSONMember("schedule", .string(schedule.cron.description)))
                members.append(JSONMember("timeZone", .string(schedule.timeZoneName)))
                if let next = schedule.nextDate(after: Date(timeIntervalSince1970: Double(now) / 1000)) {
                    members.append(JSONMember("nextRun", .int(Int64((next.timeIntervalSince1970 * 1000).rounded()))))
                }
                // The recorded tick is the time the run was for; a "run now" is only in the log.
                let tick = (try? await state.lastScheduledTime(job: summary.name)).flatMap { $0 }
                    .map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                if let last = [tick, runs.lastStart(of: summary.name)].compactMap({ $0 }).max() {
                    members.append(JSONMember("lastRun", .int(last)))
                }
            }
            items.append(.object(members))
        }
        let recent = runs.recent.map { run -> JSONValue in
            var members = [
                JSONMember("function", .string(run.function)), JSONMember("trigger", .string(run.trigger)),
                JSONMember("startedAt", .int(run.startedAt)), JSONMember("durationMs", .double(Self.rounded(run.durationMs))),
                JSONMember("outcome", .string(run.outcome.rawValue)),
            ]
            if let attempt = run.attempt { members.append(JSONMember("attempt", .int(Int64(attempt)))) }
            if let error = run.error { members.append(JSONMember("error", .string(error))) }
            return .object(members)
        }
        return .object([JSONMember("functions", .array(items)), JSONMember("runs", .array(recent))])
    }

    /// Milliseconds to the microsecond.
    private static func rounded(_ millis: Double) -> Double { (millis * 1000).rounded() / 1000 }
}
