/// Numbers as JavaScript's `Number.prototype.toString` prints them, which is how the database rules
/// language prints a number joined to a string (`'id' + 1` is `id1`, not `id1.0`).
enum JavaScriptNumber {
    /// `d` as JavaScript prints it:
    /// `1`, `1.5`, `NaN`, `10000000000000000000` (1e19), `0.000001`, `1e-7`, `1e+21`.
    static func string(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return "0" }
        // Swift prints the shortest digits that round-trip, as JavaScript does; only the layout differs.
        var text = "\(d.magnitude)"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(String(parts[0]) + (parts.count > 1 ? String(parts[1]) : ""))
        // The value is 0.DIGITS × 10^n.
        var n = parts[0].count + exponent
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            n -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let body: String
        if k <= n && n <= 21 {
            body = String(digits) + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            body = String(digits[..<n]) + "." + String(digits[n...])
        } else if -6 < n && n <= 0 {
            body = "0." + String(repeating: "0", count: -n) + String(digits)
        } else {
            let e = n - 1
            body = String(digits[0]) + (k > 1 ? "." + String(digits[1...]) : "") + "e" + (e < 0 ? "-" : "+") + String(e.magnitude)
        }
        return (d < 0 ? "-" : "") + body
    }
}
