import HearthLinks
import HearthStore

/// The HTML pages a link can answer with. Every value from a link is HTML-escaped; link targets
/// are only ever placed in `href`/`content` attributes (quoted), never in scripts.
enum LinkPages {
    static func escape(_ s: String) -> String { HTML.escape(s) }

    /// Only http(s) targets become links on a page (no `javascript:` or `data:` URLs).
    static func safeHref(_ s: String?) -> String? {
        guard let s, let url = LinkURL(s), url.isHTTP else { return nil }
        return s
    }

    static func head(_ link: DynamicLink, url: String) -> String {
        let title = link["st"] ?? "Open link"
        var h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        h += "<meta name=\"robots\" content=\"noindex\">"
        h += "<title>\(escape(title))</title>"
        h += "<meta property=\"og:title\" content=\"\(escape(title))\">"
        h += "<meta name=\"twitter:title\" content=\"\(escape(title))\">"
        if let sd = link["sd"] {
            h += "<meta name=\"description\" content=\"\(escape(sd))\">"
            h += "<meta property=\"og:description\" content=\"\(escape(sd))\">"
            h += "<meta name=\"twitter:description\" content=\"\(escape(sd))\">"
        }
        if let si = safeHref(link["si"]) {
            h += "<meta property=\"og:image\" content=\"\(escape(si))\">"
            h += "<meta name=\"twitter:image\" content=\"\(escape(si))\">"
            h += "<meta name=\"twitter:card\" content=\"summary_large_image\">"
        } else {
            h += "<meta name=\"twitter:card\" content=\"summary\">"
        }
        h += "<meta property=\"og:type\" content=\"website\">"
        h += "<meta property=\"og:url\" content=\"\(escape(url))\">"
        h += "<style>body{font-family:-apple-system,system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em;color:#222}"
        h += "a.button{display:block;margin:.8em 0;padding:.9em;border-radius:.5em;background:#1a73e8;color:#fff;text-align:center;text-decoration:none}"
        h += "a.secondary{background:#eee;color:#222}img{max-width:100%}dt{font-weight:600;margin-top:.6em}dd{margin:0;word-break:break-all}</style>"
        return h + "</head><body>"
    }

    static func intro(_ link: DynamicLink) -> String {
        var b = "<h1>\(escape(link["st"] ?? "Open link"))</h1>"
        if let sd = link["sd"] { b += "<p>\(escape(sd))</p>" }
        if let si = safeHref(link["si"]) { b += "<p><img src=\"\(escape(si))\" alt=\"\"></p>" }
        return b
    }

    /// The preview (`?d=1` and crawlers): the social tags, and where each platform would go.
    static func preview(_ link: DynamicLink, url: String) -> String {
        var b = head(link, url: url) + intro(link)
        b += "<dl>"
        func row(_ name: String, _ action: LinkAction) {
            switch action {
            case .redirect(let target): b += "<dt>\(escape(name))</dt><dd>\(escape(target))</dd>"
            case .interstitial: b += "<dt>\(escape(name))</dt><dd>app page (open app, App Store, or continue)</dd>"
            case .preview: break
            }
        }
        b += "<dt>Deep link</dt><dd>\(escape(link.link ?? ""))</dd>"
        row("iOS", LinkAction.decide(link, visitor: LinkVisitor(platform: .ios), debug: false))
        row("Android", LinkAction.decide(link, visitor: LinkVisitor(platform: .android), debug: false))
        row("Desktop", LinkAction.decide(link, visitor: LinkVisitor(platform: .desktop), debug: false))
        b += "</dl>"
        if let target = safeHref(link["ofl"] ?? link.link) { b += "<a class=\"button\" href=\"\(escape(target))\">Continue</a>" }
        return b + "</body></html>\n"
    }

    /// The iOS page: open the app (custom scheme), get it (App Store / `ifl`), or continue on the web.
    static func interstitial(_ link: DynamicLink, url: String, inviter: String?, iPad: Bool) -> String {
        var b = head(link, url: url) + intro(link)
        if let open = LinkAction.customSchemeURL(link, inviter: inviter, iPad: iPad) {
            b += "<a class=\"button\" id=\"open\" href=\"\(escape(open))\">Open in the app</a>"
        }
        if let store = LinkAction.appStore(link) ?? safeHref(LinkAction.iosFallback(link, iPad: iPad)) {
            b += "<a class=\"button secondary\" id=\"get\" href=\"\(escape(store))\">Get the app</a>"
        }
        if let web = safeHref(link.link) {
            b += "<a class=\"button secondary\" id=\"continue\" href=\"\(escape(web))\">Continue in the browser</a>"
        }
        return b + "</body></html>\n"
    }
}
