import Foundation
import HearthCore
import HearthFunctions
import HearthWire
import Logging

extension Stays {
    struct SetSwitchInput: Decodable, Sendable {
        var couchId: String
        var switchId: String
        var state: String
    }

    struct SwitchState: Encodable, Sendable {
        var state: String
    }

    static func registerSmartHome(in functions: inout Functions) throws {
        // The host flips a switch: openHAB gets the command, and the state it reports back is recorded.
        try functions.callable("setSwitch") { (input: SetSwitchInput, request, context) -> SwitchState in
            let uid = try signedIn(request)
            let couch = try key(input.couchId, "couchId")
            let switchId = try key(input.switchId, "switchId")
            guard ["ON", "OFF"].contains(input.state) else { throw CallableError(.invalidArgument, "state must be ON or OFF") }
            try await requireHost(uid, of: couch, context)
            guard let item = try await context.database.get("/switches/\(couch)/\(switchId)/item").stringValue else {
                throw CallableError(.notFound, "There is no switch \(switchId) on this couch")
            }
            guard let home = context.services.smartHome else { throw CallableError(.unavailable, "No smart home (openHAB) is configured") }
            let reported: String
            do {
                try await home.send(input.state, to: item)
                reported = try await home.state(of: item)
            } catch {
                context.logger.warning("openHAB did not take the command: \(error)")
                throw CallableError(.unavailable, "The smart home is not answering; nothing was switched")
            }
            try await context.database.set("/switches/\(couch)/\(switchId)/state", .string(reported))
            return SwitchState(state: reported)
        }

        // Every hour, each couch with an enabled watcher: the city's temperature decides its switches.
        try functions.schedule("weatherWatcher", "0 * * * *") { _, context in
            guard case .object(let couches) = try await context.database.get("/switches") else { return }
            for couch in couches where isWatched(couch.value) {
                // One couch's failure is logged with it and does not stop the others; the next hour tries again.
                _ = try? await watch(couch.key, context)
            }
        }

        try functions.callable("runWeatherWatcher") { (input: JSONValue, request, context) -> JSONValue in
            let uid = try signedIn(request)
            let couch = try key(input["couchId"]?.stringValue, "couchId")
            try await requireHost(uid, of: couch, context)
            return try await watch(couch, context)
        }
    }

    static func requireHost(_ uid: String, of couch: String, _ context: FunctionContext) async throws {
        let host = try await context.database.get("/couches/\(couch)/hostId").stringValue
        guard host != nil else { throw CallableError(.notFound, "There is no couch \(couch)") }
        guard host == uid else { throw CallableError(.permissionDenied, "Only the couch's host controls its smart home") }
    }

    static func isWatched(_ switches: JSONValue) -> Bool {
        guard case .object(let members) = switches else { return false }
        return members.contains { $0.value["watcher"]?["enabled"] == .bool(true) }
    }

    /// The watcher's work for one couch: reads the temperature of the couch's city, decides every watched switch
    /// (heating ON below its `minC`, cooling ON above its `maxC`, otherwise OFF), commands openHAB where the state
    /// differs, records the states, and logs the decision at `/switchLog/{couchId}`. When the weather or openHAB
    /// fails, nothing more is switched, the failure is logged, and `unavailable` is thrown with `details.service`.
    static func watch(_ couch: String, _ context: FunctionContext) async throws -> JSONValue {
        let city = try await context.database.get("/couches/\(couch)/city").stringValue ?? ""
        let all = try await context.database.get("/switches/\(couch)")
        guard case .object(let switches) = all, isWatched(all) else {
            // Nothing to decide: no switch has an enabled watcher.
            return .object([JSONMember("decision", .string("none")), JSONMember("changes", .object([]))])
        }
        var log: [JSONMember] = [JSONMember("at", .timestamp), JSONMember("city", .string(city))]
        var changes: [JSONMember] = []
        var decision = "none"
        var temperature: Double?
        // The service that failed ("weather" or "smartHome"), for the host's error.
        var failing = "weather"
        do {
            guard let weather = context.services.weather else { throw FunctionsError("No weather service (OpenWeather) is configured") }
            guard !city.isEmpty else { throw FunctionsError("The couch has no city") }
            let celsius = try await weather.currentTemperature(city: city)
            temperature = celsius
            failing = "smartHome"
            guard let home = context.services.smartHome else { throw FunctionsError("No smart home (openHAB) is configured") }
            decision = "off"
            for entry in switches {
                let watcher = entry.value["watcher"]
                guard watcher?["enabled"] == .bool(true), let item = entry.value["item"]?.stringValue else { continue }
                let on: Bool
                switch entry.value["type"]?.stringValue {
                case "heating":
                    guard let minC = watcher?["minC"]?.doubleValue else { continue }
                    on = celsius < minC
                    if on { decision = "heating" }
                case "cooling":
                    guard let maxC = watcher?["maxC"]?.doubleValue else { continue }
                    on = celsius > maxC
                    if on { decision = "cooling" }
                default: continue
                }
                let wanted = on ? "ON" : "OFF"
                if entry.value["state"]?.stringValue != wanted {
                    try await home.send(wanted, to: item)
                    let reported = try await home.state(of: item)
                    try await context.database.set("/switches/\(couch)/\(entry.key)/state", .string(reported))
                    changes.append(JSONMember(entry.key, .string(reported)))
                }
            }
        } catch {
            context.logger.warning("weather watcher: no change for couch \(couch): \(error)")
            log.append(JSONMember("error", .string("\(error)")))
            if let temperature { log.append(JSONMember("temperatureC", .double(temperature))) }
            log += [JSONMember("decision", .string("none")), JSONMember("changes", .object(changes))]
            _ = try await context.database.push("/switchLog/\(couch)", .object(log))
            throw CallableError(
                .unavailable, failing == "weather" ? "The weather service is not answering; nothing was switched" : "The smart home is not answering",
                details: .object([JSONMember("service", .string(failing))]))
        }
        if let temperature { log.append(JSONMember("temperatureC", .double(temperature))) }
        log.append(JSONMember("decision", .string(decision)))
        log.append(JSONMember("changes", .object(changes)))
        _ = try await context.database.push("/switchLog/\(couch)", .object(log))
        var result = [JSONMember("decision", .string(decision)), JSONMember("changes", .object(changes))]
        if let temperature { result.append(JSONMember("temperatureC", .double(temperature))) }
        return .object(result)
    }
}
