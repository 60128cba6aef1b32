/// Public: notifications and targets are read from and written as JSONValue.
public import HearthCore

extension PushNotification {
    /// The notification as JSON, the form the REST API takes and the outbox stores:
    /// `{"title", "subtitle", "body", "titleLocKey", "titleLocArgs", "bodyLocKey", "bodyLocArgs", "data", "badge",
    /// "sound", "threadId", "category", "collapseId", "imageUrl", "silent", "mutableContent", "apns": {"pushType",
    /// "priority", "expiration", "collapseId", "payload"}, "android"}`, with only the members that are set.
    public var json: JSONValue {
        var m: [JSONMember] = []
        func add(_ key: String, _ value: String?) { if let value { m.append(JSONMember(key, .string(value))) } }
        add("title", title)
        add("subtitle", subtitle)
        add("body", body)
        if let t = titleLocalization {
            add("titleLocKey", t.key)
            if !t.arguments.isEmpty { m.append(JSONMember("titleLocArgs", .array(t.arguments.map(JSONValue.string)))) }
        }
        if let b = bodyLocalization {
            add("bodyLocKey", b.key)
            if !b.arguments.isEmpty { m.append(JSONMember("bodyLocArgs", .array(b.arguments.map(JSONValue.string)))) }
        }
        if !data.isEmpty { m.append(JSONMember("data", .object(data.keys.sorted().map { JSONMember($0, .string(data[$0]!)) }))) }
        if let badge { m.append(JSONMember("badge", .int(Int64(badge)))) }
        add("sound", sound)
        add("threadId", threadID)
        add("category", category)
        add("collapseId", collapseID)
        add("imageUrl", imageURL)
        if isSilent { m.append(JSONMember("silent", .bool(true))) }
        if mutableContent { m.append(JSONMember("mutableContent", .bool(true))) }
        var a: [JSONMember] = []
        if let t = apns.pushType { a.append(JSONMember("pushType", .string(t.rawValue))) }
        if let p = apns.priority { a.append(JSONMember("priority", .int(Int64(p)))) }
        if let e = apns.expiration { a.append(JSONMember("expiration", .int(e))) }
        if let c = apns.collapseID { a.append(JSONMember("collapseId", .string(c))) }
        if !apns.payload.isEmpty { a.append(JSONMember("payload", .object(apns.payload))) }
        if !a.isEmpty { m.append(JSONMember("apns", .object(a))) }
        if let android { m.append(JSONMember("android", .object(android))) }
        return .object(m)
    }

    /// Reads the JSON form of ``json``; throws a ``PushError`` naming an unknown or mistyped member (a
    /// typo must not silently drop part of a notification).
    public init(json: JSONValue) throws {
        guard case .object(let members) = json else { throw PushError("A notification is a JSON object") }
        self.init()
        func string(_ m: JSONMember) throws -> String {
            guard case .string(let s) = m.value else { throw PushError("\"\(m.key)\" must be a string") }
            return s
        }
        func strings(_ m: JSONMember) throws -> [String] {
            guard case .array(let items) = m.value else { throw PushError("\"\(m.key)\" must be an array of strings") }
            return try items.map { item in
                guard case .string(let s) = item else { throw PushError("\"\(m.key)\" must be an array of strings") }
                return s
            }
        }
        func int(_ m: JSONMember) throws -> Int64 {
            guard case .int(let i) = m.value else { throw PushError("\"\(m.key)\" must be an integer") }
            return i
        }
        func bool(_ m: JSONMember) throws -> Bool {
            guard case .bool(let b) = m.value else { throw PushError("\"\(m.key)\" must be true or false") }
            return b
        }
        func object(_ m: JSONMember) throws -> [JSONMember] {
            guard case .object(let o) = m.value else { throw PushError("\"\(m.key)\" must be an object") }
            return o
        }
        var titleKey: String?, titleArgs: [String] = [], bodyKey: String?, bodyArgs: [String] = []
        for m in members {
            switch m.key {
            case "title": title = try string(m)
            case "subtitle": subtitle = try string(m)
            case "body": body = try string(m)
            case "titleLocKey": titleKey = try string(m)
            case "titleLocArgs": titleArgs = try strings(m)
            case "bodyLocKey": bodyKey = try string(m)
            case "bodyLocArgs": bodyArgs = try strings(m)
            case "data":
                for d in try object(m) {
                    guard case .string(let s) = d.value else { throw PushError("data values must be strings (\"\(d.key)\" is not)") }
                    data[d.key] = s
                }
            case "badge": badge = Int(clamping: try int(m))
            case "sound": sound = try string(m)
            case "threadId": threadID = try string(m)
            case "category": category = try string(m)
            case "collapseId": collapseID = try string(m)
            case "imageUrl": imageURL = try string(m)
            case "silent": isSilent = try bool(m)
            case "mutableContent": mutableContent = try bool(m)
            case "android": android = try object(m)
            case "apns":
                for a in try object(m) {
                    switch a.key {
                    case "pushType":
                        let raw = try string(a)
                        guard let type = APNsOptions.PushType(rawValue: raw) else { throw PushError("apns.pushType \"\(raw)\" is not an APNs push type") }
                        apns.pushType = type
                    case "priority": apns.priority = Int(clamping: try int(a))
                    case "expiration": apns.expiration = try int(a)
                    case "collapseId": apns.collapseID = try string(a)
                    case "payload": apns.payload = try object(a)
                    default: throw PushError("Unknown member \"apns.\(a.key)\" in a notification")
                    }
                }
            default: throw PushError("Unknown member \"\(m.key)\" in a notification")
            }
        }
        if titleKey == nil && !titleArgs.isEmpty { throw PushError("titleLocArgs needs titleLocKey") }
        if bodyKey == nil && !bodyArgs.isEmpty { throw PushError("bodyLocArgs needs bodyLocKey") }
        titleLocalization = titleKey.map { LocalizedText(key: $0, arguments: titleArgs) }
        bodyLocalization = bodyKey.map { LocalizedText(key: $0, arguments: bodyArgs) }
    }
}

extension PushTarget {
    /// `{"user": uid}`, `{"token": token}` or `{"topic": name}`.
    public var json: JSONValue {
        switch self {
        case .user(let uid): .object([JSONMember("user", .string(uid))])
        case .device(let token): .object([JSONMember("token", .string(token))])
        case .topic(let name): .object([JSONMember("topic", .string(name))])
        }
    }

    /// Reads the JSON form of ``json``: exactly one of `user`, `token` and `topic`, a string.
    public init(json: JSONValue) throws {
        guard case .object(let members) = json, members.count == 1, let m = members.first, case .string(let s) = m.value else {
            throw PushError("A target is one of {\"user\": uid}, {\"token\": deviceToken}, {\"topic\": name}")
        }
        switch m.key {
        case "user": self = .user(s)
        case "token": self = .device(s)
        case "topic": self = .topic(s)
        default: throw PushError("A target is one of {\"user\": uid}, {\"token\": deviceToken}, {\"topic\": name} (got \"\(m.key)\")")
        }
    }
}
