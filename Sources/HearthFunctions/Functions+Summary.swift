import Foundation
import HearthCore
import HearthStore
import HTTPTypes

/// What one registered function listens to, for the admin API's list (`GET /.hearth/functions`).
package struct FunctionSummary: Sendable, Hashable {
    /// `database`, `auth`, `storage`, `callable`, `http` or `schedule`.
    package var kind: String
    /// The registered name.
    package var name: String
    /// What starts it, as JSON: `{"event","path","namespace"}` for a database trigger, `{"event"}` for auth and storage,
    /// `{"method","path"}` for callable and HTTP functions, `{"cron","timeZone","missedRuns"}` for a schedule.
    package var trigger: JSONValue
    /// A scheduled job's schedule.
    package var schedule: Schedule?
}

extension Functions {
    /// Every registered function, by kind (database, auth, storage, callable, HTTP, schedule), then in the order they
    /// were registered (callables by name); database triggers without a namespace name `defaultNamespace`.
    package func summaries(defaultNamespace: String) -> [FunctionSummary] {
        var list: [FunctionSummary] = []
        for entry in database {
            let trigger = JSONValue.object([
                JSONMember("event", .string(entry.trigger.change.rawValue)), JSONMember("path", .string(entry.trigger.pattern.description)),
                JSONMember("namespace", .string(entry.namespace ?? defaultNamespace)),
            ])
            list.append(FunctionSummary(kind: "database", name: entry.trigger.function, trigger: trigger))
        }
        let event = { (name: String) in JSONValue.object([JSONMember("event", .string(name))]) }
        list += userCreated.map { FunctionSummary(kind: "auth", name: $0.name, trigger: event("created")) }
        list += userDeleted.map { FunctionSummary(kind: "auth", name: $0.name, trigger: event("deleted")) }
        list += objectFinalized.map { FunctionSummary(kind: "storage", name: $0.name, trigger: event("finalized")) }
        list += objectDeleted.map { FunctionSummary(kind: "storage", name: $0.name, trigger: event("deleted")) }
        let route = { (method: String, path: String) in
            JSONValue.object([JSONMember("method", .string(method)), JSONMember("path", .string(path))])
        }
        list += callables.keys.sorted().map { FunctionSummary(kind: "callable", name: $0, trigger: route("POST", "/functions/\($0)")) }
        for entry in routes {
            let path = "\(entry.pattern)\(entry.jsonSuffix ? ".json" : "")"
            list.append(FunctionSummary(kind: "http", name: "\(entry.method.rawValue) \(path)", trigger: route(entry.method.rawValue, path)))
        }
        for entry in schedules {
            let trigger = JSONValue.object([
                JSONMember("cron", .string(entry.schedule.cron.description)), JSONMember("timeZone", .string(entry.schedule.timeZoneName)),
                JSONMember("missedRuns", .string(entry.schedule.missedRuns == .skip ? "skip" : "runOnce")),
            ])
            list.append(FunctionSummary(kind: "schedule", name: entry.name, trigger: trigger, schedule: entry.schedule))
        }
        return list
    }
}

extension Schedule {
    /// The time zone's identifier, `UTC` for UTC (which Foundation on Linux calls `GMT`).
    package var timeZoneName: String {
        let id = timeZone.identifier
        return id == "GMT" || id == "UTC" || (id.isEmpty && timeZone.secondsFromGMT() == 0) ? "UTC" : id
    }
}
