import Foundation
import HearthCore

/// The screen a deep link opens.
public enum Route: Sendable, Hashable {
    /// A campaign, by id.
    case campaign(String)
    /// A catalogue item, by id.
    case catalogItem(String)
    /// An invite from the user `inviter`.
    case invite(inviter: String)

    /// The route of `url` as ``DeepLinks/route(for:)`` of `links` reads it; nil for any other URL.
    public init?(url: URL, links: DeepLinks = DeepLinks()) {
        guard let route = links.route(for: url) else { return nil }
        self = route
    }
}

/// The app's deep links (Examples/Rewards/README.md), as universal links and in the app's own scheme:
///
/// | Route | Universal link | App scheme |
/// |---|---|---|
/// | campaign | `https://{host}/campaign/{id}` | `rewards://campaign/{id}` |
/// | catalogue item | `https://{host}/catalog/{id}` | `rewards://catalog/{id}` |
/// | invite | `https://{host}/invite?inviter={uid}` | `rewards://invite?inviter={uid}` |
///
/// Ids are percent-decoded and must be database keys (1–768 bytes, none of `. $ # [ ] /`, no control characters);
/// anything else — another host or scheme, a port or user info, extra path segments, a missing or repeated
/// `inviter` — is no route. A trailing `/`, other query parameters (`utm_source`) and a fragment are ignored.
///
/// ```swift
/// DeepLinks().route(for: URL(string: "rewards://catalog/mug")!)   // .catalogItem("mug")
/// DeepLinks().route(for: URL(string: "https://rewards.example.com/campaign/a%2Fb")!)   // nil: "/" in an id
/// ```
public struct DeepLinks: Sendable, Hashable {
    /// The universal links' host (compared without case).
    public var host: String
    /// The app's URL scheme (compared without case).
    public var scheme: String

    /// The links of `host` and `scheme`; the defaults are the README's.
    public init(host: String = "rewards.example.com", scheme: String = "rewards") {
        self.host = host
        self.scheme = scheme
    }

    /// The route `url` opens, nil when it is not one of the app's deep links or names a malformed id.
    public func route(for url: URL) -> Route? {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let urlScheme = parts.scheme?.lowercased(),
            parts.user == nil, parts.password == nil, let urlHost = parts.percentEncodedHost?.lowercased()
        else { return nil }
        let segments: [Substring]
        if urlScheme == "https", urlHost == host.lowercased(), parts.port == nil || parts.port == 443 {
            guard let path = Self.segments(parts.percentEncodedPath), !path.isEmpty else { return nil }
            segments = path
        } else if urlScheme == scheme.lowercased(), parts.port == nil, !urlHost.isEmpty {
            guard let path = Self.segments(parts.percentEncodedPath) else { return nil }
            segments = [Substring(urlHost)] + path
        } else {
            return nil
        }
        switch (segments.first.map(String.init) ?? "", segments.count) {
        case ("campaign", 2): return Self.key(segments[1]).map(Route.campaign)
        case ("catalog", 2): return Self.key(segments[1]).map(Route.catalogItem)
        case ("invite", 1):
            let inviters = (parts.percentEncodedQueryItems ?? []).filter { $0.name == "inviter" }
            guard inviters.count == 1, let raw = inviters[0].value, let inviter = Self.key(Substring(raw)) else { return nil }
            return .invite(inviter: inviter)
        default: return nil
        }
    }

    /// The universal link of `route` (`https://{host}/…`), ids percent-encoded. ``host`` must be a host name.
    public func url(for route: Route) -> URL {
        var parts = URLComponents()
        parts.scheme = "https"
        parts.host = host
        switch route {
        case .campaign(let id): parts.percentEncodedPath = "/campaign/" + Self.encoded(id)
        case .catalogItem(let id): parts.percentEncodedPath = "/catalog/" + Self.encoded(id)
        case .invite(let inviter):
            parts.path = "/invite"
            parts.percentEncodedQueryItems = [URLQueryItem(name: "inviter", value: Self.encoded(inviter))]
        }
        guard let url = parts.url else { preconditionFailure("\(parts) is not a URL") }
        return url
    }

    /// The segments of an (encoded) path: "" → [], "/a/b" or "/a/b/" → [a, b]; nil for empty segments ("//").
    static func segments(_ path: String) -> [Substring]? {
        guard !path.isEmpty, path != "/" else { return [] }
        guard path.hasPrefix("/") else { return nil }
        var rest = path.dropFirst()
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        return segments.contains(where: \.isEmpty) ? nil : segments
    }

    /// A percent-encoded segment as a database key, nil if it is not one.
    static func key(_ encoded: Substring) -> String? {
        guard let text = percentDecode(encoded), (try? Key.validated(text)) != nil else { return nil }
        return text
    }

    /// `id` with everything but unreserved characters percent-encoded.
    static func encoded(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~"))
            ?? id
    }
}
