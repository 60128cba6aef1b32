import HearthCore

/// A notification or a target that cannot be sent as it is: the message says what to change.
public struct PushError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for the developer.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension PushNotification {
    /// Data keys FCM keeps for itself (and `aps`, APNs's own member).
    static let reservedDataKeys: Set<String> = ["from", "notification", "message_type", "aps"]

    /// Throws a ``PushError`` for a notification no provider would take: one that shows and carries
    /// nothing, a silent push with an alert, badge or sound, a reserved data key, an out-of-range badge or
    /// APNs priority, a collapse id over 64 bytes, or an `aps` member in the extra APNs payload.
    public func validate() throws {
        if !hasAlert && data.isEmpty && badge == nil && sound == nil && !isSilent && apns.payload.isEmpty {
            throw PushError("A notification needs a title, a body, data, a badge or a sound")
        }
        if isSilent && (hasAlert || sound != nil) {
            throw PushError("A silent push cannot have a title, body or sound: it only wakes the app")
        }
        for key in data.keys {
            if key.isEmpty { throw PushError("A data key must not be empty") }
            if Self.reservedDataKeys.contains(key) || key.hasPrefix("google") || key.hasPrefix("gcm") {
                throw PushError("The data key \"\(key)\" is reserved (from, notification, message_type, aps, google…, gcm…)")
            }
        }
        if let badge, badge < 0 { throw PushError("The badge must be 0 or more (got \(badge))") }
        if let priority = apns.priority {
            guard [1, 5, 10].contains(priority) else { throw PushError("The APNs priority must be 1, 5 or 10 (got \(priority))") }
            if isSilent && priority == 10 { throw PushError("A silent push must have APNs priority 5 or 1; APNs refuses 10") }
        }
        for id in [collapseID, apns.collapseID].compactMap({ $0 }) where id.utf8.count > 64 {
            throw PushError("A collapse id must be at most 64 bytes (got \(id.utf8.count))")
        }
        if apns.payload.contains(where: { $0.key == "aps" }) {
            throw PushError("The extra APNs payload must not set \"aps\": use the notification's fields")
        }
        if let pushType = apns.pushType, isSilent, pushType != .background {
            throw PushError("A silent push has APNs push type background (got \(pushType.rawValue))")
        }
    }
}

extension PushTarget {
    /// Throws a ``PushError`` for an empty user id or token, or a topic name FCM would refuse
    /// (letters, digits and `-_.~%`, up to 900 characters).
    public func validate() throws {
        switch self {
        case .user(let uid):
            if uid.isEmpty { throw PushError("A user id must not be empty") }
        case .device(let token):
            if token.isEmpty || token.utf8.count > 4096 || token.contains(where: { $0.isWhitespace || $0 == "/" }) {
                throw PushError("A device token must be non-empty, without spaces or slashes, and at most 4096 bytes")
            }
        case .topic(let name):
            guard Self.isValidTopic(name) else {
                throw PushError("A topic name is 1 to 900 of the characters a-z A-Z 0-9 - _ . ~ % (got \"\(name)\")")
            }
        }
    }

    /// Whether `name` is a valid topic name.
    public static func isValidTopic(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 900
            && name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || [0x2D, 0x5F, 0x2E, 0x7E, 0x25].contains(c)
            }
    }
}
