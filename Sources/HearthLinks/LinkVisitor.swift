public import HearthStore

/// Who opened a link, from the `User-Agent` header.
public struct LinkVisitor: Sendable, Equatable {
    /// The device family: it picks the branch of ``LinkAction/decide(_:visitor:debug:)`` and the `platform` a click is
    /// counted under.
    public var platform: LinkPlatform
    /// iPad (takes `ipfl`/`ipbi` over `ifl`/`ibi`). iPadOS 13+ Safari sends a Mac user agent and
    /// counts as desktop, as it did for Firebase.
    public var iPad: Bool
    /// A link-preview fetcher (chat apps, social networks): gets the preview page with OG tags.
    public var crawler: Bool

    /// A visitor described directly (tests, or a caller that classified the request itself); a server uses
    /// ``init(userAgent:)``.
    public init(platform: LinkPlatform, iPad: Bool = false, crawler: Bool = false) {
        self.platform = platform
        self.iPad = iPad
        self.crawler = crawler
    }

    /// Lower-case fragments of the user agents of link-preview fetchers.
    static let crawlerMarks: [[UInt8]] = [
        "facebookexternalhit", "facebot", "twitterbot", "slackbot", "slack-imgproxy", "linkedinbot", "whatsapp", "telegrambot",
        "discordbot", "skypeuripreview", "pinterest", "redditbot", "embedly", "iframely", "vkshare", "googlebot", "bingbot",
        "applebot", "mastodon", "bluesky", "cardyb", "snapchat", "viber", "line/", "kakaotalk-scrap", "google-pagerenderer",
        "bitlybot", "tumblr", "skype", "microsoftpreview", "yandexbot", "duckduckbot", "baiduspider",
    ].map { Array($0.utf8) }

    /// Classifies a user agent; no header is OTHER.
    public init(userAgent: String?) {
        guard let userAgent else {
            self.init(platform: .other)
            return
        }
        var ua = Array(userAgent.utf8.prefix(1024))
        for i in ua.indices where ua[i] >= UInt8(ascii: "A") && ua[i] <= UInt8(ascii: "Z") { ua[i] += 32 }
        let crawler = Self.crawlerMarks.contains { Self.contains(ua, $0) }
        if Self.contains(ua, Self.iPad) {
            self.init(platform: .ios, iPad: true, crawler: crawler)
        } else if Self.contains(ua, Self.iPhone) || Self.contains(ua, Self.iPod) {
            self.init(platform: .ios, crawler: crawler)
        } else if Self.contains(ua, Self.android) {
            self.init(platform: .android, crawler: crawler)
        } else if Self.desktopMarks.contains(where: { Self.contains(ua, $0) }) {
            self.init(platform: .desktop, crawler: crawler)
        } else {
            self.init(platform: .other, crawler: crawler)
        }
    }

    static let iPad = Array("ipad".utf8), iPhone = Array("iphone".utf8), iPod = Array("ipod".utf8), android = Array("android".utf8)
    static let desktopMarks: [[UInt8]] = ["windows nt", "macintosh", "x11", "cros", "linux x86_64"].map { Array($0.utf8) }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
