import Foundation
/// Public: the service is made over a DeviceStore and logs through the Logger it is given.
public import HearthStore
public import Logging
import Synchronization

/// The providers a server sends through; each nil when it is not configured.
public struct PushProviders: Sendable {
    /// APNs production (`api.push.apple.com`).
    public var apns: APNsClient?
    /// APNs development (`api.sandbox.push.apple.com`), for tokens of apps run from Xcode.
    public var apnsSandbox: APNsClient?
    /// FCM HTTP v1.
    public var fcm: FCMClient?

    /// The providers given.
    public init(apns: APNsClient? = nil, apnsSandbox: APNsClient? = nil, fcm: FCMClient? = nil) {
        self.apns = apns
        self.apnsSandbox = apnsSandbox
        self.fcm = fcm
    }
}

/// What became of one send: how many devices it reached and what happened to the others.
public struct PushReport: Sendable, Hashable {
    /// A device the notification did not reach, and why.
    public struct Failure: Sendable, Hashable {
        /// The device's token.
        public var token: String
        /// The provider's reason.
        public var reason: String
        /// Seconds the provider asked to wait before trying again (retryable failures only).
        public var retryAfter: Double?
    }

    /// Devices the target named.
    public var devices = 0
    /// Devices that took the notification.
    public var delivered = 0
    /// Tokens the provider called invalid; their registrations were removed.
    public var removed: [String] = []
    /// Devices worth trying again later (rate limits, outages).
    public var retryable: [Failure] = []
    /// Devices that cannot take this notification (wrong configuration, a message the provider refuses).
    public var rejected: [Failure] = []

    /// A report of nothing sent.
    public init() {}
}

/// Push notifications as a service: devices registered by signed-in users, topics, and sending to a user,
/// a device or a topic through APNs and FCM.
///
/// A token that a provider calls invalid is removed at once. Sends fan out with a bounded number in flight;
/// a topic's subscribers are read a page at a time, so a topic of any size never sits in memory.
public final class MessagingService: Sendable {
    /// Where registrations live.
    public let devices: any DeviceStore
    /// The providers.
    public let providers: PushProviders
    private let logger: Logger
    private let clock: @Sendable () -> Int64
    /// Devices one user may have; registering one more forgets the least recently registered.
    public static let devicesPerUser = 20
    /// Sends in flight at once during a fan-out.
    static let concurrency = 64
    /// Subscribers read per page of a topic.
    static let page = 500

    /// A service over `devices` sending through `providers`; `clock` gives milliseconds since 1970.
    public init(
        devices: any DeviceStore, providers: PushProviders, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.devices = devices
        self.providers = providers
        self.logger = logger
        self.clock = clock
    }

    // MARK: Registrations

    /// Registers `token` for the signed-in user `uid` (moving it from whoever had it), keeping at most
    /// ``devicesPerUser`` devices per user; throws a ``PushError`` for a malformed token.
    public func register(uid: String, token: String, service: PushService, sandbox: Bool = false) async throws {
        try PushTarget.user(uid).validate()
        try PushTarget.device(token).validate()
        if service == .apns, !Self.looksLikeAPNsToken(token) {
            throw PushError("An APNs device token is hexadecimal (64 characters or more): send the deviceToken bytes as hex")
        }
        try await devices.register(DeviceRegistration(token: token, uid: uid, service: service, sandbox: sandbox, updated: clock()))
        let mine = try await devices.devices(uid: uid)
        for old in mine.dropFirst(Self.devicesPerUser) { _ = try await devices.remove(token: old.token) }
    }

    /// Removes the user's registration of `token` (a sign-out); false when the user has no such device.
    public func unregister(uid: String, token: String) async throws -> Bool {
        guard try await devices.device(token: token)?.uid == uid else { return false }
        return try await devices.remove(token: token)
    }

    /// Subscribes the user's device to `topic`, or unsubscribes it; throws a ``PushError`` for a bad topic
    /// name or a token that is not one of the user's devices.
    public func setTopic(_ topic: String, subscribed: Bool, uid: String, token: String) async throws {
        try PushTarget.topic(topic).validate()
        guard try await devices.device(token: token)?.uid == uid else {
            throw PushError("The device is not registered to this user: register it before subscribing it to topics")
        }
        _ = try await devices.setTopic(topic, subscribed: subscribed, token: token)
    }

    /// Whether `token` has APNs's form: hexadecimal, at least 64 characters.
    static func looksLikeAPNsToken(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
    }

    // MARK: Sending

    /// Sends `notification` to every device `target` names and reports what happened; throws a ``PushError``
    /// (before sending anything) for a notification or target that cannot be sent.
    public func send(_ notification: PushNotification, to target: PushTarget) async throws -> PushReport {
        try notification.validate()
        try target.validate()
        var report = PushReport()
        switch target {
        case .user(let uid):
            try await fanOut(notification, to: try await devices.devices(uid: uid), into: &report)
        case .device(let token):
            let device =
                try await devices.device(token: token)
                ?? DeviceRegistration(token: token, uid: "", service: Self.looksLikeAPNsToken(token) ? .apns : .fcm, updated: 0)
            try await fanOut(notification, to: [device], into: &report)
        case .topic(let topic):
            var after: String?
            while true {
                let page = try await devices.devices(topic: topic, after: after, limit: Self.page)
                if page.isEmpty { break }
                try await fanOut(notification, to: page, into: &report)
                after = page.last?.token
                if page.count < Self.page { break }
            }
        }
        if !report.removed.isEmpty || !report.retryable.isEmpty || !report.rejected.isEmpty {
            logger.info("push sent", metadata: [
                "hearth.push.devices": "\(report.devices)", "hearth.push.delivered": "\(report.delivered)",
                "hearth.push.removed": "\(report.removed.count)", "hearth.push.retryable": "\(report.retryable.count)",
                "hearth.push.rejected": "\(report.rejected.count)",
            ])
        }
        return report
    }

    /// Sends `notification` to each of `tokens` (registered or not), as ``send(_:to:)`` does for one token.
    public func send(_ notification: PushNotification, toTokens tokens: [String]) async throws -> PushReport {
        try notification.validate()
        var report = PushReport()
        var targets: [DeviceRegistration] = []
        for token in tokens {
            try PushTarget.device(token).validate()
            targets.append(
                try await devices.device(token: token)
                    ?? DeviceRegistration(token: token, uid: "", service: Self.looksLikeAPNsToken(token) ? .apns : .fcm, updated: 0))
        }
        try await fanOut(notification, to: targets, into: &report)
        return report
    }

    /// Sends to `targets` with at most ``concurrency`` in flight, and removes the tokens found invalid.
    private func fanOut(_ notification: PushNotification, to targets: [DeviceRegistration], into report: inout PushReport) async throws {
        report.devices += targets.count
        let outcomes = await withTaskGroup(of: (String, PushOutcome).self) { group in
            var results: [(String, PushOutcome)] = []
            var next = 0
            func launch() {
                let device = targets[next]
                next += 1
                group.addTask { (device.token, await self.deliver(notification, to: device)) }
            }
            while next < min(targets.count, Self.concurrency) { launch() }
            while let result = await group.next() {
                results.append(result)
                if next < targets.count { launch() }
            }
            return results
        }
        var batch = PushReport()
        defer { PushMetrics.record(batch) }
        for (token, outcome) in outcomes {
            switch outcome {
            case .delivered: batch.delivered += 1
            case .tokenInvalid:
                _ = try await devices.remove(token: token)
                batch.removed.append(token)
            case .retry(let reason, let after): batch.retryable.append(.init(token: token, reason: reason, retryAfter: after))
            case .credentialRefused(let reason): batch.retryable.append(.init(token: token, reason: reason, retryAfter: nil))
            case .rejected(let reason): batch.rejected.append(.init(token: token, reason: reason, retryAfter: nil))
            }
        }
        report.delivered += batch.delivered
        report.removed += batch.removed
        report.retryable += batch.retryable
        report.rejected += batch.rejected
    }

    /// One device through its provider.
    private func deliver(_ notification: PushNotification, to device: DeviceRegistration) async -> PushOutcome {
        do {
            switch device.service {
            case .apns:
                guard let client = device.sandbox ? providers.apnsSandbox : providers.apns else {
                    return .rejected(reason: "APNs\(device.sandbox ? " (sandbox)" : "") is not configured on this server")
                }
                return try await client.send(notification, to: device.token)
            case .fcm:
                guard let client = providers.fcm else { return .rejected(reason: "FCM is not configured on this server") }
                return try await client.send(notification, to: .token(device.token))
            }
        } catch {
            return .rejected(reason: "\(error)")
        }
    }
}
