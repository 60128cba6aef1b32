import Foundation

/// A couch's weather watcher settings for one switch: switch on below `minC` (heating) or above `maxC` (cooling).
public struct Watcher: Codable, Sendable, Hashable {
    /// Whether the hourly job looks after this switch.
    public var enabled: Bool
    /// Heating goes ON below this temperature (°C).
    public var minC: Double?
    /// Cooling goes ON above this temperature (°C).
    public var maxC: Double?

    /// Settings for the watcher.
    public init(enabled: Bool, minC: Double? = nil, maxC: Double? = nil) {
        self.enabled = enabled
        self.minC = minC
        self.maxC = maxC
    }

    /// The temperatures the rules accept (°C).
    public static let temperatureRange = -50.0...60.0

    /// Why these settings cannot be saved; nil when they can.
    public var problem: String? {
        for value in [minC, maxC].compactMap(\.self) where !Self.temperatureRange.contains(value) {
            return "Temperatures must be between −50 °C and 60 °C."
        }
        if let minC, let maxC, minC > maxC { return "The minimum must not be above the maximum." }
        return nil
    }
}

/// `/switches/{couchId}/{switchId}`: an openHAB switch of a couch's smart home.
public struct SmartSwitch: Codable, Sendable, Hashable, Identifiable {
    /// What the switch drives.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// A heater.
        case heating
        /// An air conditioner.
        case cooling
    }

    /// The switch's key (not stored in the value).
    public var id: String = ""
    /// Heating or cooling.
    public var type: Kind
    /// The openHAB item name (`[A-Za-z0-9_]{1,100}`).
    public var item: String
    /// What openHAB last reported: `ON`, `OFF`, or another item state; nil before the first command.
    public var state: String?
    /// The weather watcher's settings; nil before they were saved.
    public var watcher: Watcher?

    enum CodingKeys: String, CodingKey { case type, item, state, watcher }

    /// A switch, for previews and tests.
    public init(id: String, type: Kind, item: String, state: String? = nil, watcher: Watcher? = nil) {
        self.id = id
        self.type = type
        self.item = item
        self.state = state
        self.watcher = watcher
    }

    /// Whether openHAB reported it on.
    public var isOn: Bool { state == "ON" }

    /// Whether `item` is an openHAB item name the rules accept.
    public static func isValidItem(_ item: String) -> Bool {
        (1...100).contains(item.utf8.count) && item.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}

/// What the weather watcher decided for a couch.
public enum WatcherDecision: String, Codable, Sendable, Hashable, CaseIterable {
    /// Too cold: heating ON, cooling OFF.
    case heating
    /// Too warm: cooling ON, heating OFF.
    case cooling
    /// Comfortable: everything OFF.
    case off
    /// Nothing to decide (no enabled watcher), or a failure.
    case none
}

/// `/switchLog/{couchId}/{logId}`: one run of the weather watcher.
public struct SwitchLogEntry: Codable, Sendable, Hashable, Identifiable {
    /// The entry's key (not stored in the value).
    public var id: String = ""
    /// When it ran.
    public var at: Date
    /// The city whose weather was read.
    public var city: String
    /// The temperature read (°C); nil when the weather could not be read.
    public var temperatureC: Double?
    /// What it decided.
    public var decision: WatcherDecision
    /// Switch id → the state it was set to (`ON` / `OFF`).
    public var changes: [String: String]
    /// What failed (openHAB, the weather service); nil when it all worked.
    public var error: String?

    enum CodingKeys: String, CodingKey { case at, city, temperatureC, decision, changes, error }

    /// An entry, for previews and tests.
    public init(id: String, at: Date, city: String, temperatureC: Double?, decision: WatcherDecision, changes: [String: String], error: String? = nil) {
        self.id = id
        self.at = at
        self.city = city
        self.temperatureC = temperatureC
        self.decision = decision
        self.changes = changes
        self.error = error
    }

    /// Decodes a missing `changes` (nothing changed) as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        at = try c.decode(Date.self, forKey: .at)
        city = try c.decode(String.self, forKey: .city)
        temperatureC = try c.decodeIfPresent(Double.self, forKey: .temperatureC)
        decision = try c.decode(WatcherDecision.self, forKey: .decision)
        changes = try c.decodeIfPresent([String: String].self, forKey: .changes) ?? [:]
        error = try c.decodeIfPresent(String.self, forKey: .error)
    }
}

/// What `runWeatherWatcher` answered.
public struct WatcherRun: Codable, Sendable, Hashable {
    /// What it decided.
    public var decision: WatcherDecision
    /// The temperature read (°C).
    public var temperatureC: Double?
    /// Switch id → the state it was set to.
    public var changes: [String: String]

    enum CodingKeys: String, CodingKey { case decision, temperatureC, changes }

    /// A run, for previews and tests.
    public init(decision: WatcherDecision, temperatureC: Double?, changes: [String: String]) {
        self.decision = decision
        self.temperatureC = temperatureC
        self.changes = changes
    }

    /// Decodes a missing `changes` as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        decision = try c.decode(WatcherDecision.self, forKey: .decision)
        temperatureC = try c.decodeIfPresent(Double.self, forKey: .temperatureC)
        changes = try c.decodeIfPresent([String: String].self, forKey: .changes) ?? [:]
    }

    /// The watcher's rule, as the server applies it: each enabled heating switch ON below its `minC`, each enabled
    /// cooling switch ON above its `maxC`, OFF otherwise. `changes` holds the switches whose state differs from
    /// before; the decision is `heating` or `cooling` when such a switch is ON, `off` otherwise, and `none` when no
    /// switch has an enabled watcher.
    public static func decide(_ switches: [SmartSwitch], temperatureC: Double) -> WatcherRun {
        let watched = switches.filter { $0.watcher?.enabled == true }
        guard !watched.isEmpty else { return WatcherRun(decision: .none, temperatureC: temperatureC, changes: [:]) }
        var changes: [String: String] = [:]
        var decision = WatcherDecision.off
        for item in watched {
            let on: Bool
            switch item.type {
            case .heating: on = item.watcher?.minC.map { temperatureC < $0 } ?? false
            case .cooling: on = item.watcher?.maxC.map { temperatureC > $0 } ?? false
            }
            if on { decision = item.type == .heating ? .heating : .cooling }
            let state = on ? "ON" : "OFF"
            if item.state != state { changes[item.id] = state }
        }
        return WatcherRun(decision: decision, temperatureC: temperatureC, changes: changes)
    }
}
