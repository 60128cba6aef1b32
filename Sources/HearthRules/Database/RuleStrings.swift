/// String operations of the rules language on UTF-16 code units, as JavaScript defines them.
///
/// Swift's `String` methods compare `Character`s (grapheme clusters, canonical equivalence): a
/// literal search for `"admin"` does not find it in `"admin\u{301}"`, where JavaScript does.
enum RuleStrings {
    /// The first occurrence of `needle` in `haystack`, as UTF-16 offsets; an empty needle is found at 0.
    static func range(of needle: String, in haystack: String) -> Range<Int>? {
        let n = Array(needle.utf16)
        let h = Array(haystack.utf16)
        guard !n.isEmpty else { return 0..<0 }
        guard h.count >= n.count else { return nil }
        var i = 0
        while i <= h.count - n.count {
            if h[i] == n[0] && h[i..<(i + n.count)].elementsEqual(n) { return i..<(i + n.count) }
            i += 1
        }
        return nil
    }

    /// Every non-overlapping occurrence of `target` replaced by `replacement`, left to right;
    /// an empty target replaces nothing. Matches of a valid string never split a surrogate pair.
    static func replacingAll(_ target: String, with replacement: String, in s: String) -> String {
        let t = Array(target.utf16)
        guard !t.isEmpty else { return s }
        let units = Array(s.utf16)
        var out: [UInt16] = []
        out.reserveCapacity(units.count)
        var i = 0
        while i < units.count {
            if i + t.count <= units.count, units[i..<(i + t.count)].elementsEqual(t) {
                out.append(contentsOf: replacement.utf16)
                i += t.count
            } else {
                out.append(units[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF16.self)
    }
}
