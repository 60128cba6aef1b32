/// Why a key, path or value cannot be stored.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; the server sends it to the client as the error text, so it never quotes stored data.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Limits applied to everything written.
public enum Limits {
    /// Maximum key size in UTF-8 bytes.
    public static let maxKeyBytes = 768
    /// Maximum depth of a path plus the nesting of the value written there.
    public static let maxDepth = 32
    /// Maximum size of one string value in UTF-8 bytes (Firebase's 10 MiB).
    public static let maxStringBytes = 10 << 20
}

extension Key {
    /// Checks a user-supplied key: non-empty, ≤ 768 bytes, none of `. $ # [ ] /` or control characters.
    public static func validated(_ s: String) throws(ValidationError) -> Key {
        guard !s.isEmpty else { throw ValidationError("Invalid key: empty") }
        guard s.utf8.count <= Limits.maxKeyBytes else { throw ValidationError("Invalid key: longer than 768 bytes") }
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: "/"), 0..<0x20, 0x7F:
                throw ValidationError("Invalid key: contains a forbidden character (. $ # [ ] / or a control character)")
            default: continue
            }
        }
        return Key(s)
    }
}

extension Path {
    /// Parses a slash-separated path whose segments are already percent-decoded.
    public static func validated(_ string: String) throws(ValidationError) -> Path {
        var keys: [Key] = []
        for segment in string.split(separator: "/", omittingEmptySubsequences: true) {
            keys.append(try Key.validated(String(segment)))
        }
        guard keys.count <= Limits.maxDepth else { throw ValidationError("Path is too deep (over 32 levels)") }
        return Path(keys)
    }

    /// Parses the raw (still percent-encoded) path of a URL: split on `/` first, then decode each segment.
    public static func validated(rawURLPath raw: Substring) throws(ValidationError) -> Path {
        var keys: [Key] = []
        for segment in raw.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = percentDecode(segment) else { throw ValidationError("Invalid path: bad percent-encoding") }
            keys.append(try Key.validated(decoded))
        }
        guard keys.count <= Limits.maxDepth else { throw ValidationError("Path is too deep (over 32 levels)") }
        return Path(keys)
    }
}

/// Decodes `%XX` escapes as UTF-8; `+` stays literal. Nil for malformed escapes or invalid UTF-8.
public func percentDecode(_ s: Substring) -> String? {
    guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    var it = s.utf8.makeIterator()
    func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
    while let c = it.next() {
        if c == UInt8(ascii: "%") {
            guard let h = it.next().flatMap(hex), let l = it.next().flatMap(hex) else { return nil }
            out.append(h << 4 | l)
        } else {
            out.append(c)
        }
    }
    return String(validating: out, as: UTF8.self)
}
