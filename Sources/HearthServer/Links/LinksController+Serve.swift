import HTTPTypes
import HearthLinks
import HearthStore
import Logging
import Hummingbird
import NIOCore

extension LinksController {
    /// The suffix in `/{suffix}` or `/<prefix path>/{suffix}`: base62 (or `-`/`_`), no dot, so it
    /// never shadows a database path (`….json`) or a file.
    func suffix(in path: String) -> (prefixPath: Substring, suffix: Substring)? {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let head = path[..<slash]
        let segment = path[path.index(after: slash)...]
        guard head.isEmpty || prefixPaths.contains(head), LinkSuffixGenerator.isPlausible(segment) else { return nil }
        return (head, segment)
    }

    /// Outside `--dev` a link is served only on its own domain: the request's `Host` must name the
    /// host of the link's prefix. Otherwise every hostname routed to Hearth would serve every link,
    /// and `/?link=https://anywhere` would redirect anywhere from any of them. `--dev` serves them on
    /// any host, so links made for a real domain can be tried on `127.0.0.1`.
    func servesOnHost(_ request: Request, prefix: String) -> Bool {
        if configuration.dev { return true }
        guard let authority = request.head.authority,
            let host = prefixHosts[prefix] ?? LinkURL(prefix).map({ Self.hostName($0.authority) })
        else { return false }
        return Self.hostName(authority) == host
    }

    /// `Example.com:8443` → `example.com` (`[::1]:80` → `[::1]`).
    static func hostName(_ authority: String) -> String {
        var host = Substring(authority.lowercased())
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") { host = host[..<colon] }
        return String(host)
    }

    /// Whether `path` is the root of a link domain (`/` or `/<prefix path>[/]`), where long links are served.
    func isLongLinkRoot(_ path: String) -> Bool {
        if path == "/" { return true }
        let trimmed = path.hasSuffix("/") ? Substring(path.dropLast()) : Substring(path)
        return prefixPaths.contains(trimmed)
    }

    /// Whether ``serve(_:)`` may answer a request with this method and path (a link suffix, a long
    /// link's root, Apple's association file); it still passes on one that names no stored link.
    func mayServe(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        guard method == .get || method == .head else { return false }
        return path == "/apple-app-site-association" || suffix(in: path) != nil || isLongLinkRoot(path)
    }

    /// Serves a link, or nil when `request` is not a link request or names no stored link (the caller
    /// routes it elsewhere: the database then answers 404).
    func serve(_ request: Request) async -> Response? {
        guard request.method == .get || request.method == .head else { return nil }
        let path = request.uri.path
        let query = request.uri.query
        if path == "/apple-app-site-association" { return wellKnown(path) }
        if let (prefixPath, suffix) = suffix(in: path) {
            let resolved: LinkService.Resolved?
            do {
                resolved = try await service.resolve(suffix: String(suffix))
            } catch {
                logger.error("link lookup failed", metadata: ["hearth.error": "\(error)"])
                return Self.page(status: .internalServerError, "<!DOCTYPE html><title>Error</title><p>The link could not be read.</p>\n")
            }
            // Unknown: the database answers its own 404 (`{"error": …}`), which REST clients expect for a path without `.json`.
            // A link lives under its own prefix only: `https://example.com/links/AbCd` is not also `/other/AbCd` or `/AbCd`.
            guard let resolved, let record = resolved.record, resolved.prefixPath == prefixPath, servesOnHost(request, prefix: record.prefix)
            else { return nil }
            return respond(request, resolved.link, record: resolved.record, query: query)
        }
        guard let query, isLongLinkRoot(path), query.contains("link=") else { return nil }
        let trimmed = path.hasSuffix("/") && path != "/" ? String(path.dropLast()) : path
        guard configuration.dev || service.domains.contains(where: { ($0.path.isEmpty ? "/" : $0.path) == trimmed && servesOnHost(request, prefix: $0.prefix) })
        else { return nil }
        guard let parsed = try? DynamicLink.parse("http://link" + path + "?" + query), let deep = parsed.link.link,
            let url = LinkURL(deep), url.isHTTP
        else {
            return Self.page(status: .badRequest, "<!DOCTYPE html><title>Invalid link</title><p>The link parameter is not a web address.</p>\n")
        }
        return respond(request, parsed.link, record: nil, query: query)
    }

    private func respond(_ request: Request, _ link: DynamicLink, record: LinkRecord?, query: String?) -> Response {
        // Also for stored links: one made before the allowlist was set must not redirect outside it.
        if service.allowlist.refused(link) != nil {
            return Self.page(
                status: .badRequest, "<!DOCTYPE html><title>Link not allowed</title><p>This link points somewhere this site does not send visitors.</p>\n")
        }
        let visitor = LinkVisitor(userAgent: request.headers[.userAgent])
        let debug = query.map { linkQueryPairs($0).contains { $0.name == "d" && $0.value == "1" } } ?? false
        let url = record?.shortLink ?? link.longLink
        let action = LinkAction.decide(link, visitor: visitor, debug: debug)
        // A HEAD is a link checker or an unfurler looking, not a visit: it gets the same answer but is not counted.
        let counted = request.method == .get ? record?.suffix : nil
        if let suffix = counted, action != .preview { service.record(suffix, visitor.platform, .click) }
        switch action {
        case .redirect(let target):
            if let suffix = counted { service.record(suffix, visitor.platform, .redirect) }
            var headers = HTTPFields()
            headers[.location] = Self.headerSafe(target)
            headers[.cacheControl] = "no-cache"
            return Response(status: .found, headers: headers)
        case .interstitial:
            return Self.page(status: .ok, LinkPages.interstitial(link, url: url, inviter: record?.inviter, iPad: visitor.iPad))
        case .preview:
            return Self.page(status: .ok, LinkPages.preview(link, url: url))
        }
    }

    /// A redirect target with anything that could split a header percent-encoded.
    static func headerSafe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value >= 0x7F }) else { return s }
        var out = ""
        for c in s.unicodeScalars {
            if c.value < 0x21 || c.value >= 0x7F {
                for b in String(c).utf8 { out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2) }
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// An HTML page that may not run scripts or load anything but images and its inline style.
    static func page(status: HTTPResponse.Status, _ html: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `/.well-known/apple-app-site-association` (also at the root, where older iOS looks) and
    /// `/.well-known/assetlinks.json`, from the configuration; nil = not configured.
    func wellKnown(_ path: String) -> Response? {
        let bytes: [UInt8]?
        switch path {
        case "/.well-known/apple-app-site-association", "/apple-app-site-association": bytes = service.appleAppSiteAssociation
        case "/.well-known/assetlinks.json": bytes = service.assetLinks
        default: return nil
        }
        guard let bytes else { return nil }
        return Responses.json(bytes)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
