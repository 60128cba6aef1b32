/// A regex character class: scalar ranges and Unicode general categories, possibly negated and
/// case-insensitive.
struct RegexCharClass: Sendable {
    struct Category: Sendable {
        /// nil = any scalar (`\p{Any}`).
        var members: Set<Unicode.GeneralCategory>?
        var negated: Bool
    }

    var ranges: [ClosedRange<UInt32>] = []
    var categories: [Category] = []
    var negated = false
    var foldCase = false

    static let maxScalar: UInt32 = 0x10FFFF

    func matches(_ c: UInt32) -> Bool {
        var hit = containsRaw(c)
        if !hit, foldCase {
            hit = Self.caseVariants(c).contains { containsRaw($0) }
        }
        return hit != negated
    }

    private func containsRaw(_ c: UInt32) -> Bool {
        for r in ranges where r.contains(c) { return true }
        guard !categories.isEmpty else { return false }
        let category = Unicode.Scalar(c)?.properties.generalCategory
        for cat in categories {
            let inside = cat.members.map { set in category.map(set.contains) ?? false } ?? true
            if inside != cat.negated { return true }
        }
        return false
    }

    /// Adds `other`'s members (complemented when `other` is negated); used for `[\d\S]`.
    mutating func add(_ other: RegexCharClass) {
        if other.negated {
            ranges += Self.complement(other.ranges)
            categories += other.categories.map { Category(members: $0.members, negated: !$0.negated) }
        } else {
            ranges += other.ranges
            categories += other.categories
        }
    }

    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            if r.upperBound >= maxScalar { return out }
            next = max(next, r.upperBound + 1)
        }
        if next <= maxScalar { out.append(next...maxScalar) }
        return out
    }

    /// The simple lower- and uppercase mappings of a scalar (for `(?i)`).
    static func caseVariants(_ c: UInt32) -> [UInt32] {
        if c < 0x80 {
            if c >= 0x41 && c <= 0x5A { return [c + 32] }
            if c >= 0x61 && c <= 0x7A { return [c - 32] }
            return []
        }
        guard let s = Unicode.Scalar(c) else { return [] }
        var out: [UInt32] = []
        for mapping in [s.properties.lowercaseMapping, s.properties.uppercaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let v = scalars.first?.value, v != c { out.append(v) }
        }
        return out
    }

    /// The scalar every case variant of `c` folds to (its simple lowercase when single).
    static func fold(_ c: UInt32) -> UInt32 {
        if c < 0x80 { return c >= 0x41 && c <= 0x5A ? c + 32 : c }
        guard let s = Unicode.Scalar(c) else { return c }
        let lower = s.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first!.value : c
    }

    // MARK: Named classes

    static func ascii(_ spec: String, negated: Bool = false) -> RegexCharClass {
        var cls = RegexCharClass()
        let scalars = Array(spec.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if i + 2 < scalars.count, scalars[i + 1] == "-" {
                cls.ranges.append(scalars[i].value...scalars[i + 2].value)
                i += 3
            } else {
                cls.ranges.append(scalars[i].value...scalars[i].value)
                i += 1
            }
        }
        cls.negated = negated
        return cls
    }

    static let digit = ascii("0-9")
    static let space = ascii("\t\n\u{0C}\r ")
    static let word = ascii("0-9A-Za-z_")

    /// `[:name:]` POSIX classes (ASCII only, as RE2).
    static func posix(_ name: String) -> RegexCharClass? {
        switch name {
        case "alnum": ascii("0-9A-Za-z")
        case "alpha": ascii("A-Za-z")
        case "ascii": ascii("\u{0}-\u{7F}")
        case "blank": ascii("\t ")
        case "cntrl": ascii("\u{0}-\u{1F}\u{7F}")
        case "digit": ascii("0-9")
        case "graph": ascii("!-~")
        case "lower": ascii("a-z")
        case "print": ascii(" -~")
        case "punct": ascii("!-/:-@[-`{-~")
        case "space": ascii("\t\n\u{0B}\u{0C}\r ")
        case "upper": ascii("A-Z")
        case "word": ascii("0-9A-Za-z_")
        case "xdigit": ascii("0-9A-Fa-f")
        default: nil
        }
    }

    /// `\p{...}` general categories: one letter (`L`) or two (`Lu`), or `Any`.
    static func unicodeCategory(_ name: String) -> Set<Unicode.GeneralCategory>?? {
        if name == "Any" { return .some(nil) }
        let all: [(String, Unicode.GeneralCategory)] = [
            ("Lu", .uppercaseLetter), ("Ll", .lowercaseLetter), ("Lt", .titlecaseLetter), ("Lm", .modifierLetter),
            ("Lo", .otherLetter), ("Mn", .nonspacingMark), ("Mc", .spacingMark), ("Me", .enclosingMark),
            ("Nd", .decimalNumber), ("Nl", .letterNumber), ("No", .otherNumber), ("Pc", .connectorPunctuation),
            ("Pd", .dashPunctuation), ("Ps", .openPunctuation), ("Pe", .closePunctuation),
            ("Pi", .initialPunctuation), ("Pf", .finalPunctuation), ("Po", .otherPunctuation),
            ("Sm", .mathSymbol), ("Sc", .currencySymbol), ("Sk", .modifierSymbol), ("So", .otherSymbol),
            ("Zs", .spaceSeparator), ("Zl", .lineSeparator), ("Zp", .paragraphSeparator), ("Cc", .control),
            ("Cf", .format), ("Cs", .surrogate), ("Co", .privateUse), ("Cn", .unassigned),
        ]
        let matching = all.filter { name.count == 1 ? $0.0.hasPrefix(name) : $0.0 == name }.map(\.1)
        return matching.isEmpty ? nil : .some(Set(matching))
    }
}
