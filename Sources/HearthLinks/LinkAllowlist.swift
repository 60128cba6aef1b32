public import HearthRules

/// Where links may send people: the deep link (`link`) and the web fallbacks (`afl`, `ifl`,
/// `ipfl`, `ofl`) of every link made or served, so that the app's link domain is no open redirect.
///
/// With patterns (`--link-allow`), a URL is allowed when one pattern (RE2 syntax) matches all of
/// it. Without patterns, only http(s) URLs on the given hosts (the link domains' own and the app's
/// authorized domains) are allowed. `--dev` without patterns allows everything (``any``).
///
/// ```swift
/// let allow = try LinkAllowlist(patterns: [#"https://example\.com/.*"#])
/// allow.allows("https://example.com/welcome")   // true
/// allow.allows("https://evil.example/")         // false
/// ```
public struct LinkAllowlist: Sendable {
    /// The `--link-allow` patterns; empty means only the default hosts.
    public let patterns: [WholeMatchPattern]
    /// Lower-cased hosts allowed when there are no patterns.
    public let hosts: Set<String>
    let allowsAll: Bool

    /// Everything allowed (`--dev`, and the offline `hearth links create`, run by the admin).
    public static let any = LinkAllowlist(patterns: [], hosts: [], allowsAll: true)

    init(patterns: [WholeMatchPattern], hosts: Set<String>, allowsAll: Bool) {
        self.patterns = patterns
        self.hosts = hosts
        self.allowsAll = allowsAll
    }

    /// - Parameters:
    ///   - patterns: RE2 patterns a whole URL must match (one is enough).
    ///   - hosts: used only without patterns: the hosts whose http(s) URLs are allowed.
    public init(patterns: [String], hosts: Set<String> = []) throws(WholeMatchPattern.SyntaxError) {
        var compiled: [WholeMatchPattern] = []
        for p in patterns { compiled.append(try WholeMatchPattern(p)) }
        self.init(patterns: compiled, hosts: Set(hosts.map { $0.lowercased() }), allowsAll: false)
    }

    /// The link parameters that send a visitor somewhere on the web.
    static let destinationParameters = ["link", "afl", "ifl", "ipfl", "ofl"]

    /// Whether a link may send a visitor to `url`.
    public func allows(_ url: String) -> Bool {
        if allowsAll { return true }
        if !patterns.isEmpty { return patterns.contains { $0.matches(url) } }
        guard let parsed = LinkURL(url), parsed.isHTTP, !parsed.hasUserInfo else { return false }
        return hosts.contains(parsed.host)
    }

    /// The first of `link`'s destinations that is not allowed, if any.
    package func refused(_ link: DynamicLink) -> String? {
        if allowsAll { return nil }
        for name in Self.destinationParameters {
            if let value = link.parameters[name], !allows(value) { return value }
        }
        return nil
    }
}
