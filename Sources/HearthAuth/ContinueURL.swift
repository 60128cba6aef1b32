/// A `continueUrl` of an email action (where the action page sends the user next), read the way a browser reads it.
///
/// Foundation's `URL` and a browser disagree on inputs such as `https://evil.com\@app.example.com/`: Foundation
/// takes `app.example.com` as the host, a browser (WHATWG URL) turns the backslash into a slash and goes to
/// `evil.com`. Checking one reading and redirecting with the other hands the emailed code to whoever wrote the URL.
/// So this parser accepts only URLs every reader agrees on and refuses the rest: `http`/`https` followed by `//`,
/// no user info, no backslash, whitespace or control character anywhere, and a host of ASCII letters, digits, `-`,
/// `.` and `_` (or an IPv6 literal). Redirects are built from the parsed parts (``description``), never from the
/// text that came in.
///
/// ```swift
/// let url = ContinueURL("https://App.example.com:443/finish?x=1#top")
/// url?.host         // "app.example.com"
/// url?.description  // "https://app.example.com/finish?x=1#top"
/// ContinueURL(#"https://evil.com\@app.example.com/"#)  // nil
/// ```
public struct ContinueURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// Lower-cased; an IPv6 literal keeps its brackets (`[::1]`).
    public let host: String
    /// Nil for the scheme's default port.
    public let port: Int?
    /// Starts with `/`.
    public let path: String
    /// The query after `?`, without it, as written (nil when there is none).
    public let query: String?
    /// The fragment after `#`, without it, as written (nil when there is none).
    public let fragment: String?

    /// Nil unless `text` is an absolute http(s) URL that browsers and this server read alike (see the type).
    public init?(_ text: String) {
        // Whitespace and control characters (browsers drop tabs and line breaks, then read what is left) and
        // backslashes (browsers read `\` as `/` in http URLs) are refused anywhere.
        guard !text.isEmpty, text.utf8.count <= 8192, !text.unicodeScalars.contains(where: Self.isRefused) else { return nil }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https", text[colon...].hasPrefix("://") else { return nil }
        var rest = text[text.index(colon, offsetBy: 3)...]
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let (host, port) = Self.authority(rest[..<slash], scheme: scheme) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
        let path = rest[slash...]
        self.path = path.isEmpty ? "/" : Self.encoded(path, escaping: Self.pathUnsafe)
        self.query = query.map { Self.encoded($0, escaping: Self.queryUnsafe) }
        self.fragment = fragment.map { Self.encoded($0, escaping: Self.fragmentUnsafe) }
    }

    /// `scheme://host[:port]/path[?query][#fragment]`, from the parsed parts.
    public var description: String { withoutFragment + (fragment.map { "#" + $0 } ?? "") }

    /// This URL with `parameters` (already encoded, `a=1&b=2`) added to its query, before any fragment.
    public func adding(query parameters: String) -> String {
        let separator =
            switch query {
            case nil: "?"
            case ""?: ""
            default: "&"
            }
        return withoutFragment + (parameters.isEmpty ? "" : separator + parameters) + (fragment.map { "#" + $0 } ?? "")
    }

    private var withoutFragment: String {
        scheme + "://" + host + (port.map { ":\($0)" } ?? "") + path + (query.map { "?" + $0 } ?? "")
    }

    /// Whitespace (Unicode's too), C0 and C1 controls, DEL and the backslash.
    private static func isRefused(_ c: Unicode.Scalar) -> Bool {
        c.value <= 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value) || c == "\\" || c.properties.isWhitespace
    }

    /// The host and port of `authority`, or nil when it is empty, holds user info (`@`), or anything a browser would
    /// decode or map to something else (`%`, non-ASCII, other punctuation).
    private static func authority(_ authority: Substring, scheme: String) -> (String, Int?)? {
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let host: Substring
        var portText: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let inner = host.dropFirst().dropLast()
            guard inner.contains(":"), inner.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else { return nil }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") })
            else { return nil }
        }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(portText), n <= 65535 else { return nil }
            port = n == (scheme == "https" ? 443 : 80) ? nil : n
        }
        return (host.lowercased(), port)
    }

    // What browsers percent-encode in each part (besides non-ASCII, and the whitespace and controls refused above).
    private static let pathUnsafe = Set("\"<>`{}".utf8)
    private static let queryUnsafe = Set("\"<>'".utf8)
    private static let fragmentUnsafe = Set("\"<>`".utf8)

    private static func encoded(_ part: Substring, escaping unsafe: Set<UInt8>) -> String {
        let safe = { (b: UInt8) in b < 0x80 && !unsafe.contains(b) }
        guard part.utf8.contains(where: { !safe($0) }) else { return String(part) }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in part.utf8 {
            if safe(b) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
