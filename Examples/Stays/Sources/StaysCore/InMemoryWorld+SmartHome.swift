import Foundation

/// Switches (host only), `setSwitch`, `runWeatherWatcher` and the hourly `weatherWatcher` job, against the world's
/// openHAB items and weather.
extension InMemoryWorld {
    func switches(of couchID: String, device: String) throws(AppError) -> [SmartSwitch] {
        _ = try host(of: couchID, device)
        return (switches[couchID] ?? [:]).values.sorted { $0.id < $1.id }
    }

    func addSwitch(_ device: String, type: SmartSwitch.Kind, item: String, couchID: String) throws(AppError) -> SmartSwitch {
        _ = try host(of: couchID, device)
        guard SmartSwitch.isValidItem(item) else { throw .permissionDenied }
        let added = SmartSwitch(id: newID("s"), type: type, item: item)
        switches[couchID, default: [:]][added.id] = added
        return added
    }

    func saveWatcher(_ device: String, _ watcher: Watcher, switchID: String, couchID: String) throws(AppError) {
        _ = try host(of: couchID, device)
        guard switches[couchID]?[switchID] != nil, Self.inRange(watcher) else { throw .permissionDenied }
        switches[couchID]?[switchID]?.watcher = watcher
    }

    /// The rules check each temperature's range, not their order.
    static func inRange(_ watcher: Watcher) -> Bool {
        [watcher.minC, watcher.maxC].compactMap(\.self).allSatisfy(Watcher.temperatureRange.contains)
    }

    func setSwitch(_ device: String, switchID: String, couchID: String, on: Bool) throws(AppError) -> String {
        _ = try host(of: couchID, device)
        guard let item = switches[couchID]?[switchID]?.item else { throw .notFound }
        guard !down.contains(.smartHome) else { throw .unavailable(.smartHome) }
        let state = on ? "ON" : "OFF"
        items[item] = state
        switches[couchID]?[switchID]?.state = state
        return state
    }

    func runWeatherWatcher(_ device: String, couchID: String) throws(AppError) -> WatcherRun {
        _ = try host(of: couchID, device)
        return try watch(couchID)
    }

    /// The scheduled `weatherWatcher` job (`0 * * * *`): every couch with an enabled watcher, failures logged.
    public func runScheduledWatcher() {
        let watched = switches.filter { $0.value.values.contains { $0.watcher?.enabled == true } }.keys
        for couchID in watched.sorted() { _ = try? watch(couchID) }
    }

    /// One couch's run: read the city's temperature, decide, switch, log. When the weather or openHAB fails,
    /// nothing changes, the failure is logged, and the error is thrown.
    func watch(_ couchID: String) throws(AppError) -> WatcherRun {
        guard let couch = couches[couchID] else { throw .notFound }
        let list = (switches[couchID] ?? [:]).values.sorted { $0.id < $1.id }
        guard !down.contains(.weather), let temperature = weather[couch.city] else {
            log(couchID, city: couch.city, temperature: nil, decision: .none, changes: [:], error: "weather unavailable")
            throw .unavailable(.weather)
        }
        let run = WatcherRun.decide(list, temperatureC: temperature)
        if !run.changes.isEmpty, down.contains(.smartHome) {
            log(couchID, city: couch.city, temperature: temperature, decision: .none, changes: [:], error: "openHAB unavailable")
            throw .unavailable(.smartHome)
        }
        for (switchID, state) in run.changes {
            switches[couchID]?[switchID]?.state = state
            if let item = switches[couchID]?[switchID]?.item { items[item] = state }
        }
        log(couchID, city: couch.city, temperature: temperature, decision: run.decision, changes: run.changes, error: nil)
        return run
    }

    func log(_ couchID: String, city: String, temperature: Double?, decision: WatcherDecision, changes: [String: String], error: String?) {
        let entry = SwitchLogEntry(id: newID("l"), at: now(), city: city, temperatureC: temperature, decision: decision, changes: changes, error: error)
        switchLog[couchID, default: []].append(entry)
    }

    func log(of couchID: String, limit: Int, device: String) throws(AppError) -> [SwitchLogEntry] {
        _ = try host(of: couchID, device)
        return Array((switchLog[couchID] ?? []).sorted { ($0.at, $0.id) > ($1.at, $1.id) }.prefix(max(0, limit)))
    }
}
