import Synchronization

/// An in-memory ``DeviceStore`` for tests and ephemeral servers.
public final class MemoryDeviceStore: DeviceStore {
    private let devices = Mutex<[String: DeviceRegistration]>([:])

    /// An empty store.
    public init() {}

    /// Adds or replaces the registration; topics stay only for the same user.
    public func register(_ device: DeviceRegistration) async throws {
        devices.withLock { all in
            var stored = device
            stored.topics = all[device.token].flatMap { $0.uid == device.uid ? $0.topics : nil } ?? []
            all[device.token] = stored
        }
    }

    /// The registration of `token`.
    public func device(token: String) async throws -> DeviceRegistration? { devices.withLock { $0[token] } }

    /// The user's devices, newest first (then by token).
    public func devices(uid: String) async throws -> [DeviceRegistration] {
        devices.withLock { all in
            all.values.filter { $0.uid == uid }.sorted { $0.updated != $1.updated ? $0.updated > $1.updated : $0.token.utf8Precedes($1.token) }
        }
    }

    /// Subscribers of `topic` in token order after `token`.
    public func devices(topic: String, after token: String?, limit: Int) async throws -> [DeviceRegistration] {
        devices.withLock { all in
            Array(
                all.values.filter { device in device.topics.contains(topic) && (token.map { $0.utf8Precedes(device.token) } ?? true) }
                    .sorted { $0.token.utf8Precedes($1.token) }.prefix(max(0, limit)))
        }
    }

    /// Adds or removes `topic` for the device.
    public func setTopic(_ topic: String, subscribed: Bool, token: String) async throws -> Bool {
        devices.withLock { all in
            guard var device = all[token] else { return false }
            var topics = Set(device.topics)
            if subscribed { topics.insert(topic) } else { topics.remove(topic) }
            device.topics = topics.sorted { $0.utf8Precedes($1) }
            all[token] = device
            return true
        }
    }

    /// Removes the device.
    public func remove(token: String) async throws -> Bool { devices.withLock { $0.removeValue(forKey: token) != nil } }

    /// Removes the user's devices.
    public func removeDevices(uid: String) async throws -> Int {
        devices.withLock { all in
            let tokens = all.values.filter { $0.uid == uid }.map(\.token)
            for token in tokens { all[token] = nil }
            return tokens.count
        }
    }

    /// Nothing to release.
    public func close() async throws {}
}
