import HearthCore

/// One request to APNs: `POST /3/device/<token>` with these headers and this JSON body. The transport
/// adds `authorization: bearer <provider token>`.
public struct APNsRequest: Sendable, Hashable {
    /// A request header.
    public struct Header: Sendable, Hashable {
        /// The header's name, lowercase.
        public var name: String
        /// Its value.
        public var value: String
    }

    /// `/3/device/<token>`.
    public var path: String
    /// `apns-topic`, `apns-push-type`, `apns-priority`, and `apns-expiration`/`apns-collapse-id` when set.
    public var headers: [Header]
    /// The payload: `aps`, the data, the extra members.
    public var body: [UInt8]

    /// The largest payload APNs takes: 4 KB, 5 KB for VoIP.
    public static func payloadLimit(_ type: APNsOptions.PushType) -> Int { type == .voip ? 5120 : 4096 }

    /// The request for `notification` to the device `token` of the app `bundleID`; throws a ``PushError``
    /// for a notification ``PushNotification/validate()`` refuses or a payload over APNs's limit.
    public init(_ notification: PushNotification, token: String, bundleID: String) throws {
        try notification.validate()
        try PushTarget.device(token).validate()
        let type = notification.apnsPushType
        path = "/3/device/" + token
        headers = notification.apnsHeaders(topic: bundleID + type.topicSuffix).map { Header(name: $0.0, value: $0.1) }
        var members = [JSONMember("aps", notification.aps)]
        for key in notification.data.keys.sorted() { members.append(JSONMember(key, .string(notification.data[key]!))) }
        if let image = notification.imageURL, notification.data["image"] == nil { members.append(JSONMember("image", .string(image))) }
        members += notification.apns.payload
        body = JSONValue.object(members).jsonBytes
        let limit = Self.payloadLimit(type)
        if body.count > limit {
            throw PushError("The APNs payload is \(body.count) bytes; APNs takes at most \(limit) for push type \(type.rawValue)")
        }
    }
}

extension APNsOptions.PushType {
    /// What `apns-topic` adds to the bundle id for this type (Apple's rule: VoIP pushes go to `<bundle>.voip`, …).
    var topicSuffix: String {
        switch self {
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .alert, .background, .mdm: ""
        }
    }
}

extension PushNotification {
    /// The push type sent: the option, else `background` for a silent push, else `alert`.
    var apnsPushType: APNsOptions.PushType { apns.pushType ?? (isSilent ? .background : .alert) }

    /// The APNs headers (without authorization), in a fixed order; `topic` is the full `apns-topic`.
    func apnsHeaders(topic: String?) -> [(String, String)] {
        var headers: [(String, String)] = []
        if let topic { headers.append(("apns-topic", topic)) }
        headers.append(("apns-push-type", apnsPushType.rawValue))
        headers.append(("apns-priority", String(apns.priority ?? (isSilent ? 5 : 10))))
        if let expiration = apns.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapse = apns.collapseID ?? collapseID { headers.append(("apns-collapse-id", collapse)) }
        return headers
    }

    /// The `aps` dictionary: the alert, badge, sound, thread, category and flags.
    var aps: JSONValue {
        var members: [JSONMember] = []
        if hasAlert {
            var alert: [JSONMember] = []
            if let title { alert.append(JSONMember("title", .string(title))) }
            if let subtitle { alert.append(JSONMember("subtitle", .string(subtitle))) }
            if let body { alert.append(JSONMember("body", .string(body))) }
            if let t = titleLocalization {
                alert.append(JSONMember("title-loc-key", .string(t.key)))
                if !t.arguments.isEmpty { alert.append(JSONMember("title-loc-args", .array(t.arguments.map(JSONValue.string)))) }
            }
            if let b = bodyLocalization {
                alert.append(JSONMember("loc-key", .string(b.key)))
                if !b.arguments.isEmpty { alert.append(JSONMember("loc-args", .array(b.arguments.map(JSONValue.string)))) }
            }
            members.append(JSONMember("alert", .object(alert)))
        }
        if let badge { members.append(JSONMember("badge", .int(Int64(badge)))) }
        if let sound { members.append(JSONMember("sound", .string(sound))) }
        if let threadID { members.append(JSONMember("thread-id", .string(threadID))) }
        if let category { members.append(JSONMember("category", .string(category))) }
        if isSilent { members.append(JSONMember("content-available", .int(1))) }
        if mutableContent { members.append(JSONMember("mutable-content", .int(1))) }
        return .object(members)
    }
}
