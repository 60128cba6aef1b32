import HearthCore

/// A long dynamic link (`https://ex.page.link/?link=…&apn=…`) as a domain prefix and its known
/// parameters. ``longLink`` renders the parameters in one canonical order with one encoding, so
/// the same link written two ways compares equal (short links are deduplicated on it).
public struct DynamicLink: Sendable, Equatable {
    /// The domain URI prefix, normalised, without a trailing slash.
    public var prefix: String
    /// Known parameters only (see ``parameterNames``), by name.
    public var parameters: [String: String]

    /// The long-link parameters Hearth understands, in the order they are rendered.
    public static let parameterNames = [
        "link", "apn", "afl", "amv", "al", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd", "si",
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid", "at", "ct", "mt", "pt",
    ]
    static let knownNames = Set(parameterNames)

    /// A link from a prefix and parameters, taken as given: nothing is checked or normalised here (``LinkService``
    /// checks the domain and the deep link when a short link is made). A name outside ``parameterNames`` is kept in
    /// ``parameters`` but never rendered by ``longLink``.
    public init(prefix: String, parameters: [String: String]) {
        self.prefix = prefix
        self.parameters = parameters
    }

    /// The value of the parameter called `name` (`link["apn"]`), or nil when it is not set.
    public subscript(name: String) -> String? { parameters[name] }

    /// The deep link (`link`).
    public var link: String? { parameters["link"] }

    /// `prefix/?link=…&…` in canonical order; every value percent-encoded.
    public var longLink: String {
        var out = prefix + "/?"
        var first = true
        for name in Self.parameterNames {
            guard let value = parameters[name] else { continue }
            if !first { out += "&" }
            first = false
            out += name + "=" + percentEncodeComponent(value)
        }
        return out
    }

    /// Whether the iOS interstitial is skipped (`efr=1`).
    var forcedRedirect: Bool { parameters["efr"] == "1" }

    /// Parses a long link. Unknown parameters, a fragment and `d` are reported and dropped.
    /// - Throws: ``LinkError`` when `text` is not an absolute http(s) URL.
    public static func parse(_ text: String) throws(LinkError) -> (link: DynamicLink, warnings: [LinkWarning]) {
        guard let url = LinkURL(text), url.isHTTP, !url.host.isEmpty else {
            throw LinkError(.invalidArgument, "Long link is not parsable: it must be an absolute http or https URL")
        }
        var warnings: [LinkWarning] = []
        if url.fragment != nil {
            warnings.append(LinkWarning(.linkWithFragments, "Link contains a fragment; it was removed"))
        }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        var parameters: [String: String] = [:]
        for (name, value) in linkQueryPairs(url.query ?? "") {
            if knownNames.contains(name) {
                parameters[name] = value
            } else if name == "d" {
                if value != "1" { warnings.append(LinkWarning(.badDebugParam, "Debug parameter d must be 1; it was ignored")) }
            } else {
                warnings.append(LinkWarning(.unrecognizedParam, "Unrecognized param: \(name)"))
            }
        }
        return (DynamicLink(prefix: url.scheme + "://" + url.authority.lowercased() + path, parameters: parameters), warnings)
    }
}
