import HearthCore
import HearthMessaging
import Testing

/// The requests Hearth sends to APNs and FCM for a notification, byte for byte, and the notifications and
/// targets refused before anything is sent.
@Suite struct ProviderRequestTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func headers(_ request: APNsRequest) -> [String] { request.headers.map { "\($0.name): \($0.value)" } }

    @Test func anAlertToAPNs() throws {
        var note = PushNotification(
            title: "New message", body: "Ada: see you at 8", data: ["chat": "c1", "from_user": "ada"], badge: 3, sound: "default",
            threadID: "c1", category: "REPLY", collapseID: "chat-c1")
        note.subtitle = "Stays"
        note.mutableContent = true
        note.apns.expiration = 1_800_000_000
        let request = try APNsRequest(note, token: "a1b2c3", bundleID: "com.example.stays")
        #expect(request.path == "/3/device/a1b2c3")
        #expect(headers(request) == [
            "apns-topic: com.example.stays", "apns-push-type: alert", "apns-priority: 10", "apns-expiration: 1800000000",
            "apns-collapse-id: chat-c1",
        ])
        #expect(text(request.body) == #"{"aps":{"alert":{"title":"New message","subtitle":"Stays","body":"Ada: see you at 8"},"badge":3,"sound":"default","thread-id":"c1","category":"REPLY","mutable-content":1},"chat":"c1","from_user":"ada"}"#)
    }

    @Test func aSilentPushIsABackgroundPushAtPriorityFive() throws {
        let request = try APNsRequest(.silent(data: ["sync": "wishlists"]), token: "ff", bundleID: "app")
        #expect(headers(request) == ["apns-topic: app", "apns-push-type: background", "apns-priority: 5"])
        #expect(text(request.body) == #"{"aps":{"content-available":1},"sync":"wishlists"}"#)
    }

    @Test func localizedTextVoipTopicsAndExtraPayload() throws {
        var note = PushNotification()
        note.titleLocalization = LocalizedText(key: "WISH_RESERVED_TITLE")
        note.bodyLocalization = LocalizedText(key: "WISH_RESERVED", arguments: ["Bike", "Ada"])
        note.apns = APNsOptions(pushType: .voip, priority: 5, collapseID: "override", payload: [JSONMember("call", .object([JSONMember("id", .int(7))]))])
        note.collapseID = "ignored-for-apns"
        let request = try APNsRequest(note, token: "ab", bundleID: "app")
        #expect(headers(request) == ["apns-topic: app.voip", "apns-push-type: voip", "apns-priority: 5", "apns-collapse-id: override"])
        #expect(text(request.body) == #"{"aps":{"alert":{"title-loc-key":"WISH_RESERVED_TITLE","loc-key":"WISH_RESERVED","loc-args":["Bike","Ada"]}},"call":{"id":7}}"#)
    }

    @Test func aPayloadOverAPNsLimitIsRefused() throws {
        let big = PushNotification(title: "t", body: String(repeating: "x", count: 4100))
        #expect(throws: PushError.self) { try APNsRequest(big, token: "ab", bundleID: "app") }
        // VoIP pushes may be 5 KB.
        var voip = PushNotification(title: "t", body: String(repeating: "x", count: 4100))
        voip.apns.pushType = .voip
        #expect(try APNsRequest(voip, token: "ab", bundleID: "app").body.count > 4096)
    }

    @Test func badNotificationsAndTargetsAreRefusedWithAReason() {
        var silentWithTitle = PushNotification.silent(data: ["a": "b"])
        silentWithTitle.title = "Hi"
        var urgentSilent = PushNotification.silent(data: ["a": "b"])
        urgentSilent.apns.priority = 10
        var badPriority = PushNotification(title: "t")
        badPriority.apns.priority = 7
        var apsInPayload = PushNotification(title: "t")
        apsInPayload.apns.payload = [JSONMember("aps", .object([]))]
        var silentAlertType = PushNotification.silent(data: ["a": "b"])
        silentAlertType.apns.pushType = .alert
        let refused: [(PushNotification, String)] = [
            (PushNotification(), "needs a title"),
            (silentWithTitle, "silent push cannot"),
            (urgentSilent, "priority 5"),
            (badPriority, "1, 5 or 10"),
            (PushNotification(title: "t", data: ["from": "x"]), "reserved"),
            (PushNotification(title: "t", data: ["google.c.a": "x"]), "reserved"),
            (PushNotification(title: "t", data: ["": "x"]), "empty"),
            (PushNotification(title: "t", badge: -1), "badge"),
            (PushNotification(title: "t", collapseID: String(repeating: "c", count: 65)), "64 bytes"),
            (apsInPayload, "\"aps\""),
            (silentAlertType, "background"),
        ]
        for (note, words) in refused {
            #expect(throws: PushError.self, "\(words)") { try note.validate() }
            #expect((try? note.validate()) == nil)
            do { try note.validate() } catch { #expect("\(error)".contains(words), "\(error)") }
        }
        // Badge only, and sound only, are real notifications.
        #expect((try? PushNotification(badge: 0).validate()) != nil)
        #expect((try? PushNotification(sound: "ping.caf").validate()) != nil)
        for target in [PushTarget.user(""), .device(""), .device("a b"), .topic(""), .topic("news/sport"), .topic("ü"), .topic(String(repeating: "t", count: 901))] {
            #expect(throws: PushError.self, "\(target)") { try target.validate() }
        }
        for target in [PushTarget.user("u1"), .device("0123abcd"), .topic("news-sport_2.x~%")] {
            #expect((try? target.validate()) != nil, "\(target)")
        }
    }

    @Test func anAlertToFCM() throws {
        var note = PushNotification(title: "New comment", body: "On: Oat milk", data: ["topic": "t1"], badge: 2, sound: "default", threadID: "t1", category: "OPEN_TOPIC", collapseID: "t1")
        note.imageURL = "https://example.com/p.jpg"
        note.bodyLocalization = LocalizedText(key: "NEW_COMMENT", arguments: ["Oat milk"])
        note.android = [JSONMember("ttl", .string("3600s")), JSONMember("notification", .object([JSONMember("channel_id", .string("comments")), JSONMember("sound", .string("chime"))]))]
        let body = try FCMMessage.body(note, to: .token("fcm-token-1"))
        #expect(text(body) == #"{"message":{"token":"fcm-token-1","notification":{"title":"New comment","body":"On: Oat milk","image":"https://example.com/p.jpg"},"data":{"topic":"t1"},"android":{"priority":"high","collapse_key":"t1","notification":{"body_loc_key":"NEW_COMMENT","body_loc_args":["Oat milk"],"sound":"chime","click_action":"OPEN_TOPIC","tag":"t1","notification_count":2,"channel_id":"comments"},"ttl":"3600s"},"apns":{"headers":{"apns-push-type":"alert","apns-priority":"10","apns-collapse-id":"t1"},"payload":{"aps":{"alert":{"title":"New comment","body":"On: Oat milk","loc-key":"NEW_COMMENT","loc-args":["Oat milk"]},"badge":2,"sound":"default","thread-id":"t1","category":"OPEN_TOPIC"}}}}}"#)
    }

    @Test func aSilentPushToAnFCMTopic() throws {
        let body = try FCMMessage.body(.silent(data: ["refresh": "1"]), to: .topic("campaigns"))
        #expect(text(body) == #"{"message":{"topic":"campaigns","data":{"refresh":"1"},"android":{"priority":"high"},"apns":{"headers":{"apns-push-type":"background","apns-priority":"5"},"payload":{"aps":{"content-available":1}}}}}"#)
        #expect(throws: PushError.self) { try FCMMessage.body(.silent(data: ["a": "b"]), to: .topic("bad topic")) }
    }
}
