import HearthCore
import HearthStore

/// What opening a link does for a visitor.
public enum LinkAction: Sendable, Equatable {
    /// 302 to this URL.
    case redirect(String)
    /// The iOS page that offers to open the app, get it from the App Store or continue on the web.
    case interstitial
    /// The preview page with OG/Twitter tags (crawlers, `?d=1`).
    case preview

    /// Decides by platform, as Firebase Dynamic Links did (an installed app with verified
    /// universal/app links opens before the browser ever asks, so the server serves the
    /// not-installed path):
    /// - crawler or `d=1` → preview;
    /// - iOS → interstitial unless `efr=1`, else `ifl` (`ipfl` on iPad), the App Store (`isi`), `link`;
    /// - Android → `afl`, else the Play Store when `apn` is set, else `al`, else `link`;
    /// - desktop and others → `ofl`, else `link`.
    ///
    /// Fallbacks are followed only when they are http(s) URLs, and `al` only when its scheme cannot run script
    /// or carry a page (`javascript:`, `data:` …): a link's creator must not be able to make its domain redirect
    /// visitors there. A refused fallback falls through to the next choice.
    public static func decide(_ link: DynamicLink, visitor: LinkVisitor, debug: Bool) -> LinkAction {
        if debug || visitor.crawler { return .preview }
        let p = link.parameters
        let deep = p["link"] ?? link.prefix
        switch visitor.platform {
        case .ios:
            guard link.forcedRedirect else { return .interstitial }
            return .redirect(iosFallback(link, iPad: visitor.iPad) ?? appStore(link) ?? deep)
        case .android:
            if let afl = web(p["afl"]) { return .redirect(afl) }
            if let store = playStore(link) { return .redirect(store) }
            return .redirect(app(p["al"]) ?? deep)
        case .desktop, .other:
            return .redirect(web(p["ofl"]) ?? deep)
        }
    }

    package static func iosFallback(_ link: DynamicLink, iPad: Bool) -> String? {
        iPad ? (web(link["ipfl"]) ?? web(link["ifl"])) : web(link["ifl"])
    }

    /// `value` when it is an http(s) URL.
    package static func web(_ value: String?) -> String? {
        guard let value, LinkURL(value)?.isHTTP == true else { return nil }
        return value
    }

    /// `value` when it is a URL whose scheme opens an app or a page, not one that runs script or inlines content.
    package static func app(_ value: String?) -> String? {
        guard let value, let url = LinkURL(value), !LinkURL.unsafeSchemes.contains(url.scheme) else { return nil }
        return value
    }

    /// `https://apps.apple.com/app/id<isi>` when `isi` is numeric.
    package static func appStore(_ link: DynamicLink) -> String? {
        guard let isi = link["isi"], !isi.isEmpty, isi.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return "https://apps.apple.com/app/id" + isi
    }

    /// `https://play.google.com/store/apps/details?id=<apn>`.
    package static func playStore(_ link: DynamicLink) -> String? {
        link["apn"].map { "https://play.google.com/store/apps/details?id=" + percentEncodeComponent($0) }
    }

    /// What the iOS SDK's `dynamicLinkFromCustomSchemeURL:` understands:
    /// `<scheme>://google/link/?deep_link_id=<link>&match_type=unique&…`, scheme = `ius` or the bundle id.
    package static func customSchemeURL(_ link: DynamicLink, inviter: String?, iPad: Bool) -> String? {
        let bundle = iPad ? (link["ipbi"] ?? link["ibi"]) : link["ibi"]
        guard let scheme = (link["ius"] ?? bundle)?.lowercased(), !scheme.isEmpty, let deep = link.link,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }),
            !LinkURL.unsafeSchemes.contains(scheme)
        else { return nil }
        var url = scheme + "://google/link/?deep_link_id=" + percentEncodeComponent(deep) + "&match_type=unique"
        for (param, name) in [("utm_source", "utm_source"), ("utm_medium", "utm_medium"), ("utm_campaign", "utm_campaign"), ("imv", "imv")] {
            if let v = link[param] { url += "&" + name + "=" + percentEncodeComponent(v) }
        }
        if let inviter { url += "&invitation_id=" + percentEncodeComponent(inviter) }
        return url
    }
}
