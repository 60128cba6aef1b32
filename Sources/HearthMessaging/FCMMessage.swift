import HearthCore

/// The body of FCM HTTP v1's `POST /v1/projects/{project}/messages:send`: `{"message": {...}}` for one
/// registration token or one FCM topic, with the cross-platform notification, the data, the `android`
/// block (the notification's own options under the caller's overrides) and the `apns` block an iOS device
/// reached through FCM gets.
public enum FCMMessage {
    /// Who an FCM message goes to.
    public enum Recipient: Sendable, Hashable {
        /// A registration token.
        case token(String)
        /// An FCM topic (devices the app subscribed with FCM itself).
        case topic(String)
    }

    /// The JSON body for `notification` to `recipient`; throws a ``PushError`` for a notification
    /// ``PushNotification/validate()`` refuses.
    public static func body(_ notification: PushNotification, to recipient: Recipient) throws -> [UInt8] {
        try notification.validate()
        var message: [JSONMember] = []
        switch recipient {
        case .token(let token):
            try PushTarget.device(token).validate()
            message.append(JSONMember("token", .string(token)))
        case .topic(let topic):
            try PushTarget.topic(topic).validate()
            message.append(JSONMember("topic", .string(topic)))
        }
        var shown: [JSONMember] = []
        if let title = notification.title { shown.append(JSONMember("title", .string(title))) }
        if let body = notification.body { shown.append(JSONMember("body", .string(body))) }
        if let image = notification.imageURL { shown.append(JSONMember("image", .string(image))) }
        if !shown.isEmpty && !notification.isSilent { message.append(JSONMember("notification", .object(shown))) }
        if !notification.data.isEmpty {
            message.append(JSONMember("data", .object(notification.data.keys.sorted().map { JSONMember($0, .string(notification.data[$0]!)) })))
        }
        let android = androidBlock(notification)
        if !android.isEmpty { message.append(JSONMember("android", .object(android))) }
        var apnsPayload = [JSONMember("aps", notification.aps)]
        apnsPayload += notification.apns.payload
        let headers = notification.apnsHeaders(topic: nil).map { JSONMember($0.0, .string($0.1)) }
        message.append(JSONMember("apns", .object([JSONMember("headers", .object(headers)), JSONMember("payload", .object(apnsPayload))])))
        return JSONValue.object([JSONMember("message", .object(message))]).jsonBytes
    }

    /// `android`: priority and collapse key, the notification's Android options, then the caller's
    /// ``PushNotification/android`` members over them (its `notification` merged member by member).
    static func androidBlock(_ n: PushNotification) -> [JSONMember] {
        var block: [JSONMember] = []
        if n.isSilent || (n.apns.priority ?? 10) == 10 && n.hasAlert { block.append(JSONMember("priority", .string("high"))) }
        if let collapse = n.collapseID { block.append(JSONMember("collapse_key", .string(collapse))) }
        var shown: [JSONMember] = []
        if let t = n.titleLocalization {
            shown.append(JSONMember("title_loc_key", .string(t.key)))
            if !t.arguments.isEmpty { shown.append(JSONMember("title_loc_args", .array(t.arguments.map(JSONValue.string)))) }
        }
        if let b = n.bodyLocalization {
            shown.append(JSONMember("body_loc_key", .string(b.key)))
            if !b.arguments.isEmpty { shown.append(JSONMember("body_loc_args", .array(b.arguments.map(JSONValue.string)))) }
        }
        if let sound = n.sound { shown.append(JSONMember("sound", .string(sound))) }
        if let category = n.category { shown.append(JSONMember("click_action", .string(category))) }
        if let tag = n.threadID { shown.append(JSONMember("tag", .string(tag))) }
        if let badge = n.badge { shown.append(JSONMember("notification_count", .int(Int64(badge)))) }
        if !shown.isEmpty && !n.isSilent { block.append(JSONMember("notification", .object(shown))) }
        for member in n.android ?? [] {
            if member.key == "notification", case .object(let theirs) = member.value,
                let i = block.firstIndex(where: { $0.key == "notification" }), case .object(let ours) = block[i].value
            {
                block[i].value = .object(merged(ours, theirs))
            } else {
                block = merged(block, [member])
            }
        }
        return block
    }

    /// `base` with each member of `overrides` replacing the one of the same name, or added after.
    static func merged(_ base: [JSONMember], _ overrides: [JSONMember]) -> [JSONMember] {
        var out = base
        for member in overrides {
            if let i = out.firstIndex(where: { $0.key == member.key }) { out[i] = member } else { out.append(member) }
        }
        return out
    }
}
