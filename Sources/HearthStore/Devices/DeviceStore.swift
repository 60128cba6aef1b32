/// The push service a device token belongs to.
public enum PushService: String, Sendable, Codable, CaseIterable {
    /// Apple Push Notification service: the token an iOS app gets from `registerForRemoteNotifications`.
    case apns = "APNS"
    /// Firebase Cloud Messaging: a registration token from the Firebase SDK (Android, or iOS through FCM).
    case fcm = "FCM"
}

/// One device a signed-in user registered for push notifications.
public struct DeviceRegistration: Sendable, Hashable, Codable {
    /// The device's token; one token is one app install on one device.
    public var token: String
    /// The user it belongs to.
    public var uid: String
    /// Which service the token is for.
    public var service: PushService
    /// An APNs token of the development environment (an app built and run from Xcode).
    public var sandbox: Bool
    /// Topics the device is subscribed to, sorted.
    public var topics: [String]
    /// When it was last registered, milliseconds since 1970.
    public var updated: Int64

    /// A registration; `topics` are kept sorted and without repeats.
    public init(token: String, uid: String, service: PushService, sandbox: Bool = false, topics: [String] = [], updated: Int64) {
        self.token = token
        self.uid = uid
        self.service = service
        self.sandbox = sandbox
        self.topics = Array(Set(topics)).sorted { $0.utf8Precedes($1) }
        self.updated = updated
    }
}

/// Users' devices for push notifications and their topic subscriptions, kept apart from the JSON tree.
///
/// A token is one device: registering it again, for the same user or after another user signed in on
/// the same phone, replaces the registration. A device that changes hands loses its topics (they were
/// the previous user's interests); one registered again by the same user keeps them.
///
/// ```swift
/// try await devices.register(DeviceRegistration(token: apnsToken, uid: "u1", service: .apns, updated: now))
/// _ = try await devices.setTopic("campaigns-berlin", subscribed: true, token: apnsToken)
/// for device in try await devices.devices(topic: "campaigns-berlin", after: nil, limit: 500) { … }
/// ```
public protocol DeviceStore: Sendable {
    /// Stores `device` (its `topics` are ignored): a new token is added without topics; a known one takes
    /// the new user, service, environment and time, and keeps its topics only when the user is the same.
    func register(_ device: DeviceRegistration) async throws
    /// The registration of `token`, if any.
    func device(token: String) async throws -> DeviceRegistration?
    /// The user's devices, most recently registered first.
    func devices(uid: String) async throws -> [DeviceRegistration]
    /// Devices subscribed to `topic` in token order (UTF-8 bytes), after `token` when given, at most `limit`.
    func devices(topic: String, after token: String?, limit: Int) async throws -> [DeviceRegistration]
    /// Subscribes the device to `topic` or unsubscribes it; false when no device has this token.
    func setTopic(_ topic: String, subscribed: Bool, token: String) async throws -> Bool
    /// Removes the device and its subscriptions; false when there was none.
    func remove(token: String) async throws -> Bool
    /// Removes all of a user's devices (the account was deleted); returns how many.
    func removeDevices(uid: String) async throws -> Int
    /// Releases the backend's files; call once, after the last use.
    func close() async throws
}
