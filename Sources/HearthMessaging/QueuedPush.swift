import HearthCore

/// A push notification waiting in an outbox (the `$push` event): written in the transaction of the writes
/// that caused it, delivered by the server's outbox dispatcher, retried with backoff, dead-lettered with the
/// provider's reason.
///
/// A send that reached some devices and must be retried for others goes on as a new event for just those
/// devices (``Recipients/tokens(_:)``), so nobody gets the notification twice.
public struct QueuedPush: Sendable, Hashable {
    /// The outbox function name of push events; `$` keeps it apart from every function an app can register.
    public static let function = "$push"
    /// Sends of the same notification to the same devices, in all, before the rest become a dead letter.
    public static let maxAttempts = 8

    /// Who gets it.
    public enum Recipients: Sendable, Hashable {
        /// A user, a token or a topic, resolved to devices when it is sent.
        case target(PushTarget)
        /// These device tokens (what is left of an earlier send).
        case tokens([String])
    }

    /// Who gets it.
    public var recipients: Recipients
    /// What they get.
    public var notification: PushNotification
    /// Sends already made to these recipients (0 for a new push).
    public var attempts: Int

    /// A push of `notification` to `recipients`.
    public init(_ notification: PushNotification, to recipients: Recipients, attempts: Int = 0) {
        self.notification = notification
        self.recipients = recipients
        self.attempts = attempts
    }

    /// The event's payload: `{"target": {...}}` or `{"tokens": [...]}`, with `"notification"` and `"attempts"`.
    public var payload: [UInt8] {
        var members: [JSONMember] = []
        switch recipients {
        case .target(let target): members.append(JSONMember("target", target.json))
        case .tokens(let tokens): members.append(JSONMember("tokens", .array(tokens.map(JSONValue.string))))
        }
        members.append(JSONMember("notification", notification.json))
        if attempts > 0 { members.append(JSONMember("attempts", .int(Int64(attempts)))) }
        return JSONValue.object(members).jsonBytes
    }

    /// Reads an event's payload; throws a ``PushError`` when it is not one.
    public init(payload: [UInt8]) throws {
        guard let json = try? JSONValue.parse(payload) else { throw PushError("A push event's payload is not JSON") }
        guard let notification = json["notification"] else { throw PushError("A push event has no notification") }
        self.notification = try PushNotification(json: notification)
        if let target = json["target"] {
            recipients = .target(try PushTarget(json: target))
        } else if case .array(let items)? = json["tokens"] {
            recipients = .tokens(items.compactMap(\.stringValue))
        } else {
            throw PushError("A push event names neither a target nor tokens")
        }
        if case .int(let n)? = json["attempts"] { attempts = Int(clamping: n) } else { attempts = 0 }
    }
}
