/// Public: JSONMember carries the extra APNs payload and FCM's android block.
public import HearthCore

/// A notification to send: what the user sees (title, body, badge, sound), the data the app gets, and
/// the options for each platform. One value serves APNs and FCM; each provider takes what it knows.
///
/// ```swift
/// var note = PushNotification(title: "New message", body: "Ada: see you at 8", data: ["chat": chatID])
/// note.threadID = chatID
/// ```
public struct PushNotification: Sendable, Hashable {
    /// The alert's title.
    public var title: String?
    /// A second line under the title (APNs only).
    public var subtitle: String?
    /// The alert's text.
    public var body: String?
    /// A title the app localizes: a key in its `Localizable.strings` and the arguments (APNs `title-loc-key`,
    /// FCM `title_loc_key`). Used instead of `title` on devices that have the key.
    public var titleLocalization: LocalizedText?
    /// A body the app localizes (APNs `loc-key`, FCM `body_loc_key`).
    public var bodyLocalization: LocalizedText?
    /// Key-value data the app receives (APNs custom keys beside `aps`, FCM `data`).
    public var data: [String: String]
    /// The number on the app's icon; 0 clears it.
    public var badge: Int?
    /// A sound file in the app's bundle, or `default`.
    public var sound: String?
    /// Groups notifications in Notification Center (APNs `thread-id`).
    public var threadID: String?
    /// The notification's category, for its actions (APNs `category`, FCM `click_action`).
    public var category: String?
    /// A later notification with the same id replaces this one (APNs `apns-collapse-id`, FCM `collapse_key`).
    public var collapseID: String?
    /// An image shown with the notification (FCM `image`; APNs gets it in the data, for a notification service extension).
    public var imageURL: String?
    /// A background (silent) push: no alert, sound or badge, the app is woken to fetch (APNs
    /// `content-available`, push type `background`, priority 5).
    public var isSilent: Bool
    /// Lets a notification service extension change the content before it is shown (APNs `mutable-content`).
    public var mutableContent: Bool
    /// APNs headers and extra payload.
    public var apns: APNsOptions
    /// FCM's `android` block (an `AndroidConfig` object), sent as it is to FCM.
    public var android: [JSONMember]?

    /// A notification; every part is optional, but one that shows nothing and carries nothing is refused.
    public init(
        title: String? = nil, body: String? = nil, data: [String: String] = [:], badge: Int? = nil, sound: String? = nil,
        threadID: String? = nil, category: String? = nil, collapseID: String? = nil
    ) {
        self.title = title
        self.body = body
        self.data = data
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.collapseID = collapseID
        isSilent = false
        mutableContent = false
        apns = APNsOptions()
    }

    /// A background push that only wakes the app with `data`.
    public static func silent(data: [String: String]) -> PushNotification {
        var note = PushNotification(data: data)
        note.isSilent = true
        return note
    }

    /// Whether the user sees something: a title, body or either localization.
    public var hasAlert: Bool {
        title != nil || subtitle != nil || body != nil || titleLocalization != nil || bodyLocalization != nil
    }
}


/// A string the app localizes: a key of its strings file and the arguments for its `%@` placeholders.
public struct LocalizedText: Sendable, Hashable {
    /// The key.
    public var key: String
    /// Arguments, in order.
    public var arguments: [String]

    /// `key` with `arguments`.
    public init(key: String, arguments: [String] = []) {
        self.key = key
        self.arguments = arguments
    }
}

/// What only APNs understands: its request headers and extra payload.
public struct APNsOptions: Sendable, Hashable {
    /// `apns-push-type`.
    public enum PushType: String, Sendable, CaseIterable {
        /// Shown to the user, the default; one kind per line below is Apple's name for the header value.
        case alert, background, voip, complication, fileprovider, mdm, liveactivity, location, pushtotalk
    }

    /// Default: `background` for a silent push, else `alert`.
    public var pushType: PushType?
    /// `apns-priority`: 10 (at once), 5 (when power allows) or 1 (lowest). Default: 5 for a silent push, else 10.
    public var priority: Int?
    /// `apns-expiration`: until when (seconds since 1970) APNs keeps trying; 0 = once, now or never.
    /// Default: APNs's own (it stores one notification per device for a while).
    public var expiration: Int64?
    /// `apns-collapse-id`; replaces ``PushNotification/collapseID`` for APNs.
    public var collapseID: String?
    /// Members added to the payload's top level (beside `aps` and the data); `aps` itself is refused.
    public var payload: [JSONMember]

    /// No options: APNs's defaults.
    public init(pushType: PushType? = nil, priority: Int? = nil, expiration: Int64? = nil, collapseID: String? = nil, payload: [JSONMember] = []) {
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
    }
}

/// Who a notification goes to.
public enum PushTarget: Sendable, Hashable {
    /// Every device the user registered.
    case user(String)
    /// One device token (APNs or FCM), registered or not.
    case device(String)
    /// Every device subscribed to the topic.
    case topic(String)
}
