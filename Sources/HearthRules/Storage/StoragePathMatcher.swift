/// Matches a flattened `match` pattern against a request path (`b/<bucket>/o/<segments…>`) and
/// returns the wildcard values in pattern order: strings for `{name}`, paths for `{name=**}`.
///
/// Recursive wildcards try the longest run first and failed (pattern, path) positions are
/// remembered, so several `**` in one pattern still cost at most pattern × path steps.
struct StoragePathMatcher {
    let pattern: [StoragePatternSegment]
    let target: [String]
    /// Segments a recursive wildcard must take: 0 in rules_version 2, 1 in version 1.
    let minimumRun: Int
    /// Only patterns with a `**` can revisit a position, so only they need the memo.
    let hasRecursive: Bool
    /// Where each wildcard matched, in pattern order (values are built only after a match).
    private var captures: [Range<Int>] = []
    private var failed: Set<Int> = []

    static func match(_ pattern: [StoragePatternSegment], _ target: [String], version: Int) -> [StorageValue]? {
        var matcher = StoragePathMatcher(pattern: pattern, target: target, minimumRun: version >= 2 ? 0 : 1)
        guard matcher.run(0, 0) else { return nil }
        var values: [StorageValue] = []
        var k = 0
        for segment in pattern {
            switch segment {
            case .literal: continue
            case .single: values.append(.string(target[matcher.captures[k].lowerBound]))
            case .recursive: values.append(.path(StoragePathValue(target[matcher.captures[k]])))
            }
            k += 1
        }
        return values
    }

    private init(pattern: [StoragePatternSegment], target: [String], minimumRun: Int) {
        self.pattern = pattern
        self.target = target
        self.minimumRun = minimumRun
        hasRecursive = pattern.contains { if case .recursive = $0 { true } else { false } }
    }

    private mutating func run(_ p: Int, _ t: Int) -> Bool {
        if p == pattern.count { return t == target.count }
        let key = p * (target.count + 1) + t
        if !failed.isEmpty, failed.contains(key) { return false }
        switch pattern[p] {
        case .literal(let s):
            if t < target.count, target[t] == s, run(p + 1, t + 1) { return true }
        case .single:
            if t < target.count {
                captures.append(t..<(t + 1))
                if run(p + 1, t + 1) { return true }
                captures.removeLast()
            }
        case .recursive:
            var end = target.count
            while end >= t + minimumRun {
                captures.append(t..<end)
                if run(p + 1, end) { return true }
                captures.removeLast()
                end -= 1
            }
        }
        if hasRecursive { failed.insert(key) }
        return false
    }
}
