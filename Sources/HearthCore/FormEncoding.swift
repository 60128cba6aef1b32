import Foundation

/// Parses a raw query string the way Firebase's servers and HTML forms do
/// (`application/x-www-form-urlencoded`): split on `&` and `=`, read `+` as a space, then
/// percent-decode, so a literal plus arrives as `%2B`. Later duplicates win. A value with a
/// malformed escape is kept as written (with `+` still read as a space).
///
/// Python's `requests`, firebase-admin-python and google-cloud-storage encode spaces in query
/// parameters as `+`; keeping the `+` made `equalTo=%22Alice+Smith%22` miss and refused
/// `auth_variable_override` sent with JSON's default `", "` separators.
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
        out[decodeFormComponent(name)] = decodeFormComponent(value)
    }
    return out
}

/// An `application/x-www-form-urlencoded` body: the same encoding as a query string.
public func parseFormBody(_ body: String) -> [String: String] {
    parseQueryString(body)
}

/// One form-encoded name or value: `+` is a space, `%XX` escapes are UTF-8; a malformed escape keeps
/// the text as written (spaces for `+`).
public func decodeFormComponent(_ s: Substring) -> String {
    // Most names and values have neither: skip the copy (this runs on every REST request).
    guard s.utf8.contains(UInt8(ascii: "+")) else { return percentDecode(s) ?? String(s) }
    let spaced = String(decoding: s.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    return percentDecode(Substring(spaced)) ?? spaced
}

/// Percent-encodes everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`).
public func percentEncodeComponent(_ s: String) -> String {
    let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.append(b)
        default:
            out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}
