import Foundation
import HearthCore

/// The parts of an absolute URL, split without normalising anything (`scheme://authority/path?query#fragment`).
/// Enough for link prefixes and link parameters; not a general URL parser.
package struct LinkURL: Sendable, Equatable {
    /// Lower-cased.
    package var scheme: String
    /// As written (`user@host:port` is kept whole; see ``host``).
    package var authority: String
    /// `""` or starting with `/`.
    package var path: String
    package var query: String?
    package var fragment: String?

    /// Schemes a browser runs or renders inline: never a redirect target or an app button (`javascript://%0A…` is
    /// script despite the slashes).
    package static let unsafeSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob", "about", "filesystem"]

    /// Nil unless `text` has a scheme of letters, digits, `+`, `-` or `.` followed by `://` and a non-empty authority,
    /// and no control characters (a raw line break would end up in pages and headers).
    package init?(_ text: String) {
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        authority = String(rest[..<slash])
        path = String(rest[slash...])
        guard !authority.isEmpty, !authority.contains(where: { $0 == " " || $0 == "\\" }) else { return nil }
        self.scheme = scheme.lowercased()
    }

    /// The host (lower-cased), without user info or port.
    package var host: String {
        var h = Substring(authority)
        if let at = h.lastIndex(of: "@") { h = h[h.index(after: at)...] }
        if h.hasPrefix("["), let close = h.firstIndex(of: "]") { return String(h[...close]).lowercased() }
        if let colon = h.lastIndex(of: ":") { h = h[..<colon] }
        return h.lowercased()
    }

    package var isHTTP: Bool { scheme == "http" || scheme == "https" }
    package var hasUserInfo: Bool { authority.contains("@") }
}

/// A configured link domain: a URI prefix such as `https://example.page.link` or
/// `https://example.com/links`, kept normalised (scheme and host lower-cased, no trailing slash).
public struct LinkDomain: Sendable, Hashable, CustomStringConvertible {
    /// `scheme://host[:port][/path]`.
    public let prefix: String
    /// `scheme://host[:port]`, lower-cased.
    package let origin: String
    /// `""` or a path such as `/links`, without a trailing slash.
    package let path: String

    /// Nil unless `text` is `http(s)://host[:port][/path]` with no user info, query or fragment.
    public init?(_ text: String) {
        guard let url = LinkURL(text), url.isHTTP, !url.hasUserInfo, url.query == nil, url.fragment == nil, !url.host.isEmpty else {
            return nil
        }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        guard !path.contains("//"), !path.contains(where: { $0 == "?" || $0 == "#" }) else { return nil }
        origin = url.scheme + "://" + url.authority.lowercased()
        self.path = path
        prefix = origin + path
    }

    /// The ``prefix``.
    public var description: String { prefix }

    /// Whether `url` points at this prefix or below it.
    package func covers(_ url: LinkURL) -> Bool {
        guard url.scheme + "://" + url.authority.lowercased() == origin else { return false }
        return path.isEmpty || url.path == path || url.path.hasPrefix(path + "/")
    }
}

/// Splits a query string into (name, value) pairs in order; `%XX` is decoded and `+` is a space
/// (form encoding, which link builders commonly use). A malformed escape is kept as written.
package func linkQueryPairs(_ query: String) -> [(name: String, value: String)] {
    query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (decodeFormComponent(parts[0]), parts.count > 1 ? decodeFormComponent(parts[1]) : "")
    }
}
