import Foundation
import HearthCore

/// Parses a raw query string: split on `&` and `=`, percent-decode, keep `+` literal.
/// Later duplicates win. Malformed escapes are kept as written.
func parseQueryString(_ query: String?) -> [String: String] {
    guard let query, !query.isEmpty else { return [:] }
    var out: [String: String] = [:]
    for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = percentDecode(parts[0]) ?? String(parts[0])
        let value = parts.count > 1 ? (percentDecode(parts[1]) ?? String(parts[1])) : ""
        out[name] = value
    }
    return out
}

/// An `application/x-www-form-urlencoded` body: a query string where `+` stands for a space.
func parseFormBody(_ body: String) -> [String: String] {
    parseQueryString(body.replacingOccurrences(of: "+", with: "%20"))
}

/// Constant-time comparison of two secrets.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var diff = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return diff == 0
}
