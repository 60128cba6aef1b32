import Foundation
public import HearthCore
public import HearthStore
import Synchronization

/// Short links: creation (validation, warnings, dedupe, suffixes), resolution (cached) and click
/// counts. Used by the HTTP controller and by the offline `hearth links` commands.
///
/// ```swift
/// let links = LinkService(store: MemoryLinkStore(), domains: [LinkDomain("https://ex.page.link")!])
/// let made = try await links.create(.object([JSONMember("longDynamicLink", .string("https://ex.page.link/?link=https://ex.com/"))]))
/// print(made.shortLink)   // https://ex.page.link/3fK9x0QbZ1aLmN2pQ
/// ```
public struct LinkService: Sendable {
    /// Where links and click counters are kept (the project's links file in a server).
    public let store: any LinkStore
    /// The prefixes links may be made on; a create request for any other is refused (`extraDomain` aside).
    public let domains: [LinkDomain]
    /// Clicks counted by ``record(_:_:_:)`` and not yet saved. Run a ``LinkClickFlusher`` on it (HearthServer does) or
    /// call ``LinkClickRecorder/flush(to:)``; otherwise counts stay in memory and are lost when the process ends.
    public let clicks = LinkClickRecorder()
    let suffixes: LinkSuffixGenerator
    let clock: @Sendable () -> Int64
    let cache = LinkCache()
    /// The file served at `/.well-known/apple-app-site-association` (and at the root, where older iOS looks), so iOS
    /// verifies universal links on the link domains; nil answers 404.
    public let appleAppSiteAssociation: [UInt8]?
    /// The file served at `/.well-known/assetlinks.json`, so Android verifies App Links on the link domains; nil answers 404.
    public let assetLinks: [UInt8]?
    /// Where links may send people (checked when a link is made and when it is served).
    public let allowlist: LinkAllowlist

    /// A service; nothing is read from `store` until the first call.
    /// - Parameters:
    ///   - store: where links and click counters are kept.
    ///   - domains: the prefixes links may be made on.
    ///   - appleAppSiteAssociation: the bytes of the Apple app-site-association file (nil: not served).
    ///   - assetLinks: the bytes of the Android Digital Asset Links file (nil: not served).
    ///   - allowlist: where links may send people. The default, ``LinkAllowlist/any``, allows everything: right for
    ///     `--dev` and for the admin's offline commands, an open redirect anywhere else.
    ///   - suffixes: draws suffixes (inject a seeded source in tests).
    ///   - clock: now, in milliseconds since 1970: the `created` time of new links and the UTC day clicks count on.
    public init(
        store: any LinkStore, domains: [LinkDomain], appleAppSiteAssociation: [UInt8]? = nil, assetLinks: [UInt8]? = nil,
        allowlist: LinkAllowlist = .any, suffixes: LinkSuffixGenerator = LinkSuffixGenerator(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.store = store
        self.domains = domains
        self.appleAppSiteAssociation = appleAppSiteAssociation
        self.assetLinks = assetLinks
        self.allowlist = allowlist
        self.suffixes = suffixes
        self.clock = clock
    }

    /// A link made (or found again) by ``create(_:extraDomain:)``.
    public struct Created: Sendable {
        /// The stored link: the one just made, or the one already made for the same long link, option and inviter.
        public var record: LinkRecord
        /// What looks wrong in the link (see ``LinkWarning/Code``); the link was made anyway.
        public var warnings: [LinkWarning]
        /// `prefix/suffix`: the link to share.
        public var shortLink: String { record.shortLink }
        /// The short link with `?d=1`, which shows the preview page instead of redirecting (to check a link before sharing it).
        public var previewLink: String { record.shortLink + "?d=1" }
    }

    /// A stored link ready to serve.
    public struct Resolved: Sendable {
        /// The stored short link; nil for a long link resolved from its own parameters by ``LinkService/resolve(url:)``,
        /// which has no suffix, inviter or counts.
        public var record: LinkRecord?
        /// The link's prefix and parameters, as ``LinkAction/decide(_:visitor:debug:)`` takes them.
        public var link: DynamicLink
        /// Where a short link lives, worked out once when it is cached: its prefix's host (lower-cased) and path
        /// without a trailing slash (`""` for `https://ex.page.link`, `/links` for `https://example.com/links`).
        /// A short link is `<prefixHost><prefixPath>/<suffix>` and is found only there. Empty for long links.
        package var prefixHost = ""
        package var prefixPath = ""

        init(record: LinkRecord?, link: DynamicLink) {
            self.record = record
            self.link = link
            if let record, let prefix = LinkURL(record.prefix) {
                prefixHost = prefix.host
                prefixPath = prefix.path.hasSuffix("/") ? String(prefix.path.dropLast()) : prefix.path
            }
        }
    }

    /// Today, in days since 1970 (UTC).
    public var today: Int64 { clock() / 86_400_000 }

    // MARK: Create

    /// Handles a create request body (`{longDynamicLink | dynamicLinkInfo, suffix: {option}}`).
    /// - Parameter extraDomain: a prefix accepted besides the configured ones (the server's own
    ///   origin in `--dev`).
    public func create(_ body: JSONValue, extraDomain: LinkDomain? = nil) async throws -> Created {
        guard case .object(let members) = body else { throw LinkError(.invalidArgument, "Invalid JSON payload received.") }
        var long: String?
        var info: JSONValue?
        var option = LinkSuffixOption.unguessable
        for m in members where m.value != .null {
            switch DynamicLink.camelCase(m.key) {
            case "longDynamicLink":
                guard let s = m.value.stringValue else { throw LinkError(.invalidArgument, "Invalid value at 'long_dynamic_link' (TYPE_STRING)") }
                long = s
            case "dynamicLinkInfo": info = m.value
            case "sdkVersion": break
            case "suffix":
                guard case .object(let fields) = m.value else { throw LinkError(.invalidArgument, "Invalid value at 'suffix': expected an object") }
                for f in fields where f.value != .null {
                    guard f.key == "option" else {
                        throw LinkError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(f.key)\" at 'suffix': Cannot find field.")
                    }
                    switch f.value.stringValue {
                    case "SHORT": option = .short
                    case "UNGUESSABLE", "OPTION_UNSPECIFIED": option = .unguessable
                    case "CUSTOM": throw LinkError(.invalidArgument, "CUSTOM suffixes are not supported; use SHORT or UNGUESSABLE")
                    default: throw LinkError(.invalidArgument, "Invalid value at 'suffix.option': use SHORT or UNGUESSABLE")
                    }
                }
            default:
                throw LinkError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(m.key)\": Cannot find field.")
            }
        }
        var warnings: [LinkWarning] = []
        let link: DynamicLink
        var inviter: String?
        switch (long, info) {
        case (nil, nil), (.some, .some):
            throw LinkError(.invalidArgument, "Exactly one of longDynamicLink and dynamicLinkInfo must be given")
        case (let text?, nil):
            let parsed = try DynamicLink.parse(text)
            link = parsed.link
            warnings = parsed.warnings
        case (nil, let info?):
            let fields = try DynamicLink.info(info)
            guard let prefix = fields.prefix else {
                throw LinkError(.invalidArgument, "dynamicLinkInfo needs a domainUriPrefix (or dynamicLinkDomain)")
            }
            guard let domain = LinkDomain(prefix) else {
                throw LinkError(.invalidArgument, "domainUriPrefix must look like https://example.page.link or https://example.com/links")
            }
            link = DynamicLink(prefix: domain.prefix, parameters: fields.parameters)
            inviter = fields.inviter
        }
        return try await create(link: link, option: option, inviter: inviter, warnings: warnings, extraDomain: extraDomain)
    }

    /// Makes (or finds again) the short link for `link`: checks the domain, the deep link and the
    /// inviter, adds the parameter warnings to `warnings`, and draws suffixes until one is free.
    public func create(
        link: DynamicLink, option: LinkSuffixOption, inviter: String? = nil, warnings: [LinkWarning] = [], extraDomain: LinkDomain? = nil
    ) async throws -> Created {
        var link = link
        var warnings = warnings
        guard let domain = LinkDomain(link.prefix), domains.contains(domain) || domain == extraDomain else {
            throw LinkError(.invalidArgument, "Your project does not own Dynamic Links domain: \(link.prefix)")
        }
        link.prefix = domain.prefix
        try check(link: link)
        if let refused = allowlist.refused(link) {
            throw LinkError(.invalidArgument, "Link \(refused.prefix(200)) is not allowed by this project's URL allowlist (--link-allow)")
        }
        if let inviter {
            guard !inviter.isEmpty, inviter.utf8.count <= 128, !inviter.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw LinkError(.invalidArgument, "inviter must be a uid of 1-128 bytes without control characters")
            }
        }
        warnings += link.warnings
        let longLink = link.longLink
        if let existing = try await store.link(longLink: longLink, option: option, inviter: inviter) {
            return Created(record: existing, warnings: warnings)
        }
        for attempt in 0..<32 {
            let suffix = option == .unguessable ? suffixes.unguessable() : suffixes.short(length: LinkSuffixGenerator.shortStartLength + attempt / 4)
            let record = LinkRecord(suffix: suffix, prefix: domain.prefix, longLink: longLink, option: option, inviter: inviter, created: clock())
            switch try await store.insert(record) {
            case .inserted: return Created(record: record, warnings: warnings)
            case .duplicate(let existing): return Created(record: existing, warnings: warnings)
            case .suffixTaken: continue
            }
        }
        throw LinkError(.invalidArgument, "Could not find a free suffix; try again")
    }

    /// The deep link must be an absolute http(s) URL that is not itself a dynamic link.
    func check(link: DynamicLink) throws(LinkError) {
        guard let text = link.link, !text.isEmpty else { throw LinkError(.invalidArgument, "The link parameter is missing") }
        guard let url = LinkURL(text), url.isHTTP, !url.host.isEmpty else {
            throw LinkError(.invalidArgument, "Bad link parameter: it must be an absolute http or https URL (got \(text.prefix(200)))")
        }
        let host = url.host
        if host.hasSuffix(".page.link") || host == "page.link" || host.hasSuffix(".app.goo.gl") || host == "goo.gl"
            || domains.contains(where: { $0.covers(url) }) || LinkDomain(link.prefix)?.covers(url) == true
        {
            throw LinkError(.invalidArgument, "The link parameter must not itself be a dynamic link: \(text.prefix(200))")
        }
    }

    // MARK: Resolve

    /// The stored link with this suffix (cached: links never change).
    public func resolve(suffix: String) async throws -> Resolved? {
        if let hit = cache[suffix] { return hit }
        guard let record = try await store.link(suffix: suffix) else { return nil }
        guard let parsed = try? DynamicLink.parse(record.longLink) else { return nil }
        let resolved = Resolved(record: record, link: parsed.link)
        cache[suffix] = resolved
        return resolved
    }

    /// A short link (by its last path segment) or a long link (by its `link` parameter).
    public func resolve(url text: String) async throws -> Resolved? {
        guard let url = LinkURL(text), url.isHTTP else { return nil }
        if let query = url.query, linkQueryPairs(query).contains(where: { $0.name == "link" }) {
            guard let parsed = try? DynamicLink.parse(text) else { return nil }
            return Resolved(record: nil, link: parsed.link)
        }
        guard let slash = url.path.lastIndex(of: "/") else { return nil }
        let segment = url.path[url.path.index(after: slash)...]
        guard LinkSuffixGenerator.isPlausible(segment), let resolved = try await resolve(suffix: String(segment)),
            resolved.prefixHost == url.host, resolved.prefixPath == url.path[..<slash]
        else { return nil }
        return resolved
    }

    // MARK: Delete

    /// Deletes a short link and its click counters (saved and pending); false when no link has this suffix.
    /// The short link stops working at once on this node; another node sharing the store may serve it from its cache
    /// until that cache is cleared.
    public func delete(suffix: String) async throws -> Bool {
        let removed = try await store.delete(suffix: suffix)
        cache[suffix] = nil
        clicks.discard(suffix: suffix)
        return removed
    }

    // MARK: Counts

    /// Counts one event of a short link today (buffered; see ``LinkClickRecorder``).
    public func record(_ suffix: String, _ platform: LinkPlatform, _ event: LinkEvent) {
        clicks.record(LinkCounterKey(suffix: suffix, platform: platform, event: event, day: today))
    }

    /// Counters of a link over the last `days` UTC days (today included), saved plus pending.
    public func counts(suffix: String, days: Int) async throws -> [LinkCount] {
        let from = today - Int64(max(1, days)) + 1
        var merged: [LinkCounterKey: Int64] = clicks.pending(suffix: suffix, fromDay: from)
        for c in try await store.counts(suffix: suffix, fromDay: from) { merged[c.key, default: 0] += c.count }
        return merged.map { LinkCount(key: $0.key, count: $0.value) }
            .sorted { ($0.key.day, $0.key.platform.rawValue, $0.key.event.rawValue) < ($1.key.day, $1.key.platform.rawValue, $1.key.event.rawValue) }
    }
}

/// Resolved links by suffix, bounded (cleared when full: links are immutable, so a miss only costs a read).
final class LinkCache: Sendable {
    static let capacity = 50_000
    private let entries = Mutex<[String: LinkService.Resolved]>([:])

    subscript(suffix: String) -> LinkService.Resolved? {
        get { entries.withLock { $0[suffix] } }
        set {
            entries.withLock { e in
                if e.count >= Self.capacity { e.removeAll(keepingCapacity: true) }
                e[suffix] = newValue
            }
        }
    }
}
