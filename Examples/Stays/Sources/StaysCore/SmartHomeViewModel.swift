import Foundation
import Observation

/// Smart home (host only): a couch's openHAB switches, their weather watcher settings, a "run now" and the log.
@MainActor @Observable
public final class SmartHomeViewModel {
    /// The couch's id.
    public let couchID: String
    /// The switches, in key order.
    public private(set) var switches: [SmartSwitch] = []
    /// The watcher's newest runs, newest first.
    public private(set) var log: [SwitchLogEntry] = []
    /// The last "run now" result.
    public private(set) var lastRun: WatcherRun?
    /// The load's progress.
    public private(set) var state: ActionState = .idle
    /// The last action's progress (switching, saving, running).
    public private(set) var actionState: ActionState = .idle
    /// The switch being switched, if any.
    public private(set) var switching: String?
    private let useCases: UseCases

    /// The smart home of `couchID`.
    public init(couchID: String, _ useCases: UseCases) {
        self.couchID = couchID
        self.useCases = useCases
    }

    private var home: any SmartHomeService { useCases.repositories.smartHome }

    /// Loads switches and log.
    public func load() async {
        state = .working
        do {
            switches = try await home.switches(of: couchID)
            log = try await home.log(of: couchID, limit: UseCases.logLimit)
            state = .done
        } catch {
            state = .failed(error)
        }
    }

    /// Connects an openHAB item as a heating or cooling switch.
    public func addSwitch(_ type: SmartSwitch.Kind, item: String) async {
        let item = item.trimmingCharacters(in: .whitespaces)
        guard SmartSwitch.isValidItem(item) else {
            actionState = .failed(.invalidInput("An openHAB item name has 1–100 letters, digits or underscores."))
            return
        }
        await act { () async throws(AppError) in
            let added = try await self.home.addSwitch(type, item: item, to: self.couchID)
            self.switches.append(added)
        }
    }

    /// Turns `smartSwitch` on or off; the switch then shows what openHAB reported.
    public func set(_ smartSwitch: SmartSwitch, on: Bool) async {
        guard switching == nil else { return }
        switching = smartSwitch.id
        await act { () async throws(AppError) in
            let state = try await self.home.setSwitch(smartSwitch.id, of: self.couchID, on: on)
            if let index = self.switches.firstIndex(where: { $0.id == smartSwitch.id }) { self.switches[index].state = state }
        }
        switching = nil
    }

    /// Saves a switch's watcher settings after checking them.
    public func saveWatcher(_ watcher: Watcher, for switchID: String) async {
        if let problem = watcher.problem {
            actionState = .failed(.invalidInput(problem))
            return
        }
        await act { () async throws(AppError) in
            try await self.home.saveWatcher(watcher, switchID: switchID, of: self.couchID)
            if let index = self.switches.firstIndex(where: { $0.id == switchID }) { self.switches[index].watcher = watcher }
        }
    }

    /// Runs the weather watcher now, then reloads switches and log (a failure is logged too).
    public func runNow() async {
        await act { () async throws(AppError) in self.lastRun = try await self.home.runWeatherWatcher(couchID: self.couchID) }
        if let switches = try? await home.switches(of: couchID) { self.switches = switches }
        if let log = try? await home.log(of: couchID, limit: UseCases.logLimit) { self.log = log }
    }

    private func act(_ body: () async throws(AppError) -> Void) async {
        actionState = .working
        do {
            try await body()
            actionState = .done
        } catch {
            actionState = .failed(error)
        }
    }
}
