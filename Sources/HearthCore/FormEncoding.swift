import Foundation

/// Parses a raw query string: split on `&` and `=`, percent-decode, keep `+` literal.
/// Later duplicates win. Malformed escapes are kept as written.
public func parseQueryString(_ query: String?) -> [String: String] {
    guard let query, !query.isEmpty else { return [:] }
    var out: [String: String] = [:]
    // Split the UTF-8 bytes (`&` and `=` are ASCII, so every piece starts and ends on a character boundary):
    // splitting the String by Character cost more than the rest of a small form's parse.
    for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
        let name: Substring
        let value: Substring
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = Substring(pair[..<equals])
            value = Substring(pair[pair.index(after: equals)...])
        } else {
            (name, value) = (Substring(pair), "")
        }
        out[percentDecode(name) ?? String(name)] = percentDecode(value) ?? String(value)
    }
    return out
}

/// An `application/x-www-form-urlencoded` body: a query string where `+` stands for a space.
public func parseFormBody(_ body: String) -> [String: String] {
    // Foundation's replacingOccurrences was ~3 % of a token refresh even when the body had no `+`.
    guard body.utf8.contains(UInt8(ascii: "+")) else { return parseQueryString(body) }
    return parseQueryString(String(decoding: body.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self))
}
