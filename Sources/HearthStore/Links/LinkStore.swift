/// How a short link's suffix was chosen (`suffix.option` of a create request).
public enum LinkSuffixOption: String, Sendable, Codable, CaseIterable {
    /// 17 base62 characters from 96 random bits: cannot be guessed or enumerated.
    case unguessable = "UNGUESSABLE"
    /// As short as possible: 4 base62 characters, more when those run out.
    case short = "SHORT"
}

/// One stored short link: its suffix and the normalized long link it stands for.
public struct LinkRecord: Sendable, Hashable, Codable {
    /// The path segment after the domain prefix (`AbCd`).
    public var suffix: String
    /// The domain URI prefix the link lives under (`https://example.page.link`).
    public var prefix: String
    /// The normalized long dynamic link (`https://example.page.link/?link=…&apn=…`).
    public var longLink: String
    /// How the suffix was chosen; part of the dedupe key with `longLink` and `inviter`.
    public var option: LinkSuffixOption
    /// Hearth extension: the uid of the user who shared the link (returned as `invitationId`).
    public var inviter: String?
    /// Creation time, milliseconds since 1970.
    public var created: Int64

    /// A link record; `created` is milliseconds since 1970.
    public init(suffix: String, prefix: String, longLink: String, option: LinkSuffixOption, inviter: String? = nil, created: Int64) {
        self.suffix = suffix
        self.prefix = prefix
        self.longLink = longLink
        self.option = option
        self.inviter = inviter
        self.created = created
    }

    /// `prefix/suffix`.
    public var shortLink: String { prefix + "/" + suffix }
}

/// The outcome of ``LinkStore/insert(_:)``.
public enum LinkInsertResult: Sendable, Equatable {
    /// Stored; the suffix is now taken.
    case inserted
    /// The same long link (with the same option and inviter) already has this short link.
    case duplicate(LinkRecord)
    /// Another link already uses the suffix; pick another one.
    case suffixTaken
}

/// Where a click came from (the `platform` values of Firebase link stats).
public enum LinkPlatform: String, Sendable, Codable, CaseIterable {
    /// An Android device.
    case android = "ANDROID"
    /// An iOS or iPadOS device.
    case ios = "IOS"
    /// A desktop browser.
    case desktop = "DESKTOP"
    /// Anything not recognised as one of the above.
    case other = "OTHER"
}

/// What happened (the `event` values of Firebase's link stats that Hearth can observe).
public enum LinkEvent: String, Sendable, Codable, CaseIterable {
    /// The short link was opened.
    case click = "CLICK"
    /// The server redirected the opener somewhere (fallback, store or deep link).
    case redirect = "REDIRECT"
    /// An app resolved the link through `reopenAttribution`.
    case appReOpen = "APP_RE_OPEN"
}

/// One counter cell: clicks of one link from one platform of one kind on one UTC day.
public struct LinkCounterKey: Sendable, Hashable {
    /// The link's suffix.
    public var suffix: String
    /// Where the clicks came from.
    public var platform: LinkPlatform
    /// What kind of event was counted.
    public var event: LinkEvent
    /// Days since 1970-01-01 (UTC).
    public var day: Int64

    /// The cell for `suffix`, `platform` and `event` on UTC day number `day`.
    public init(suffix: String, platform: LinkPlatform, event: LinkEvent, day: Int64) {
        self.suffix = suffix
        self.platform = platform
        self.event = event
        self.day = day
    }
}

/// A counter cell and its value.
public struct LinkCount: Sendable, Hashable {
    /// Which cell.
    public var key: LinkCounterKey
    /// How many events it holds.
    public var count: Int64

    /// A cell and its count.
    public init(key: LinkCounterKey, count: Int64) {
        self.key = key
        self.count = count
    }
}

/// Short links and their click counters, kept apart from the JSON tree.
///
/// Links are immutable once created. Counters are only ever added to, in batches (the server
/// buffers clicks in memory and flushes about once a second).
///
/// ```swift
/// let store = MemoryLinkStore()
/// let record = LinkRecord(suffix: "AbCd", prefix: "https://ex.page.link", longLink: long, option: .short, created: now)
/// switch try await store.insert(record) {
/// case .inserted: print(record.shortLink)
/// case .duplicate(let existing): print(existing.shortLink)
/// case .suffixTaken: break // draw another suffix
/// }
/// ```
public protocol LinkStore: Sendable {
    /// The link with this suffix (case-sensitive), if any.
    func link(suffix: String) async throws -> LinkRecord?
    /// The link already made for this long link, option and inviter, if any (dedupe).
    func link(longLink: String, option: LinkSuffixOption, inviter: String?) async throws -> LinkRecord?
    /// Stores `record` unless its suffix is taken or the same link exists.
    func insert(_ record: LinkRecord) async throws -> LinkInsertResult
    /// Links ordered by suffix (byte order), after `suffix` when given, at most `limit`.
    func links(after suffix: String?, limit: Int) async throws -> [LinkRecord]
    /// Adds the increments to their counters, all in one transaction.
    func addCounts(_ increments: [LinkCounterKey: Int64]) async throws
    /// The non-zero counters of a link on days `fromDay...` (inclusive), by day, platform and event.
    func counts(suffix: String, fromDay: Int64) async throws -> [LinkCount]
    /// Removes the link with this suffix and its counters, in one transaction; false when there was none.
    func delete(suffix: String) async throws -> Bool
    /// Releases the backend's files; call once, after the last use.
    func close() async throws
}
