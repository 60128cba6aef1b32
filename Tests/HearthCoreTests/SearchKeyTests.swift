import HearthCore
import Testing

/// `SearchKey`: the normal form apps store for prefix search, and the query range that finds a prefix.
@Suite("Search keys")
struct SearchKeyTests {
    @Test(arguments: [
        // Accents and case.
        ("József", "jozsef"), ("JÓZSEF", "jozsef"), ("Jozsef", "jozsef"), ("Jörg", "jorg"), ("Zoë", "zoe"), ("Ångström", "angstrom"),
        ("Crème Brûlée", "creme brulee"), ("e\u{301}", "e"), ("Çağrı", "cagri"), ("Dvořák", "dvorak"), ("Nguyễn", "nguyen"),
        // Letters without a decomposition.
        ("Straße", "strasse"), ("STRASSE", "strasse"), ("ẞ", "ss"), ("Øre", "ore"), ("Łódź", "lodz"), ("Æble", "aeble"),
        ("Đorđe", "dorde"), ("Þór", "thor"), ("Guðrún", "gudrun"), ("Œuvre", "oeuvre"), ("Ħamrun", "hamrun"),
        ("İstanbul", "istanbul"), ("ıspanak", "ispanak"), ("ŧ", "t"),
        // Greek: no final-sigma distinction.
        ("ΣΊΣΥΦΟΣ", "σισυφοσ"), ("σίσυφος", "σισυφοσ"),
        // Compatibility forms and widths.
        ("Ａｂｃ", "abc"), ("ﬁsh", "fish"), ("㎒", "mhz"), ("Ⅻ", "xii"), ("ǅ", "dz"),
        // Whitespace.
        ("  Anna \t\n  Maria  ", "anna maria"), ("a\u{00A0}\u{2003}b", "a b"), ("a\u{3000}b", "a b"), ("   ", ""), ("", ""),
        // Invisible and control characters go; U+FFFF (the range end) never appears in a key.
        ("soft\u{AD}hyphen", "softhyphen"), ("zero\u{200B}width", "zerowidth"), ("\u{FEFF}bom", "bom"), ("a\u{FFFF}b", "ab"),
        ("a\u{0}b\u{7}c", "abc"),
        // Other scripts, emoji and CJK pass through.
        ("北京", "北京"), ("東京タワー", "東京タワー"), ("🎁 Lego", "🎁 lego"), ("👍🏽", "👍🏽"), ("Привет", "привет"), ("שלום", "שלום"),
    ] as [(String, String)])
    func normalizes(text: String, expected: String) {
        #expect(SearchKey.normalize(text) == expected)
        #expect(Array(SearchKey.normalize(text).unicodeScalars) == Array(expected.unicodeScalars))
    }

    @Test func prefixRangeEndsWithTheLargestCodeUnit() {
        let jo = SearchKey.prefixRange("Jó")
        #expect(jo.start == "jo" && jo.end == "jo\u{FFFF}")
        let jorg = SearchKey.prefixRange("  JÖRG  ")
        #expect(jorg.start == "jorg" && jorg.end == "jorg\u{FFFF}")
        let all = SearchKey.prefixRange("")
        #expect(all.start == "" && Array(all.end.utf16) == [0xFFFF])
    }

    @Test func longTextsAreCutWithoutATrailingSpace() {
        let long = SearchKey.normalize(String(repeating: "Ab ", count: 300))
        #expect(long.count <= SearchKey.maxLength)
        #expect(long.count >= SearchKey.maxLength - 1)
        #expect(!long.hasSuffix(" "))
        #expect(long.hasPrefix("ab ab ab"))
        #expect(SearchKey.normalize(long) == long)
        // Accented letters count as one character each.
        let accented = SearchKey.normalize(String(repeating: "é", count: 500))
        #expect(accented == String(repeating: "e", count: SearchKey.maxLength))
    }

    /// Every scalar of the first two planes, alone and between letters: normalizing twice changes nothing, and
    /// no key holds U+FFFF, a leading, trailing or double space.
    @Test func normalizeIsIdempotentForEveryScalar() {
        var failures: [String] = []
        for value in UInt32(0)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(Character(scalar)), "Ab\(Character(scalar))Ç d"] {
                let once = SearchKey.normalize(text)
                if SearchKey.normalize(once) != once || !Self.isWellFormed(once) {
                    failures.append(String(value, radix: 16))
                }
            }
        }
        #expect(failures.isEmpty, "not idempotent or malformed for U+\(failures.prefix(20))")
    }

    @Test func normalizeIsIdempotentForRandomText() {
        var random = SplitMix64(seed: 0x5EA_4C4)
        for _ in 0..<3_000 {
            let text = Gen.string(&random, maxLength: 24)
            let once = SearchKey.normalize(text)
            #expect(SearchKey.normalize(once) == once, "\(Array(text.unicodeScalars))")
            #expect(Self.isWellFormed(once), "\(Array(text.unicodeScalars))")
        }
    }

    /// The query bounds from `prefixRange`, applied with Hearth's own value order, keep exactly the names whose key
    /// starts (code unit by code unit) with the normalized prefix: brute force over a seeded set of names and
    /// prefixes (prefixes of the names as typed, of their keys, and random ones).
    @Test func prefixRangeKeepsExactlyTheMatchingNames() {
        var random = SplitMix64(seed: 42)
        let first = ["József", "Jozsef", "Joanna", "Jörg", "Zoë", "Zoe", "Łukasz", "Øystein", "Ægir", "Straße", "Đurđa", "İlkay", "Ōno"]
        let pieces = ["jo", "JÓ", "zs", "ef", "ö", "ß", "ss", "ł", "ø", "a", "n", " ", "北", "🎁", "é", "\u{FFFD}", "\u{FFFC}", "\u{F8FF}",
            "\u{F900}", "\u{FE4F}", "\u{E000}", "z", "Z", "\u{10FFFD}", "Ω"]
        var names = first
        for _ in 0..<400 {
            if random.chance(60) {
                names.append((0..<(1 + random.below(5))).map { _ in random.pick(pieces) }.joined())
            } else {
                names.append(Gen.string(&random, maxLength: 8))
            }
        }
        let keys = names.map(SearchKey.normalize)
        var prefixes = ["", "J", "jó", "JOZ", "zoe", "Zoë", "ss", "ß", "l", "o", "ae", " ", "\u{FFFD}", "\u{F8FF}"]
        for name in names.prefix(150) {
            let characters = Array(name)
            for n in 0...min(characters.count, 4) { prefixes.append(String(characters.prefix(n))) }
        }
        for key in keys.prefix(150) {
            let units = Array(key.utf16)
            for n in 0...min(units.count, 6) {
                let text = String(decoding: units.prefix(n), as: UTF16.self)
                if Array(text.utf16) == Array(units.prefix(n)) { prefixes.append(text) }
            }
        }
        for _ in 0..<100 { prefixes.append(Gen.string(&random, maxLength: 3)) }

        for prefix in Set(prefixes) {
            let range = SearchKey.prefixRange(prefix)
            let query = Query(order: .value, start: Query.Bound(value: .string(range.start)), end: Query.Bound(value: .string(range.end)))
            let normalized = Array(SearchKey.normalize(prefix).utf16)
            for (name, key) in zip(names, keys) {
                let matches = Array(key.utf16).starts(with: normalized)
                let inRange = query.contains(key: Key("k"), value: .leaf(.string(key)))
                #expect(matches == inRange, "prefix \(Array(prefix.unicodeScalars)) name \(Array(name.unicodeScalars)) key \(Array(key.unicodeScalars))")
            }
        }
        // The names of the SDK's live test.
        let live = ["József", "Jozsef", "Joanna", "Jörg", "Zoë"]
        func found(_ prefix: String) -> [String] {
            let range = SearchKey.prefixRange(prefix)
            let query = Query(order: .value, start: Query.Bound(value: .string(range.start)), end: Query.Bound(value: .string(range.end)))
            return live.filter { query.contains(key: Key("k"), value: .leaf(.string(SearchKey.normalize($0)))) }
        }
        #expect(found("Jó") == ["József", "Jozsef", "Joanna", "Jörg"])
        #expect(found("JOZ") == ["József", "Jozsef"])
        #expect(found("zoe") == ["Zoë"])
        #expect(found("") == live)
    }

    /// Not empty-or-trimmed, no double spaces, no U+FFFF: what every key must be.
    static func isWellFormed(_ key: String) -> Bool {
        !key.hasPrefix(" ") && !key.hasSuffix(" ") && !key.contains("  ") && !key.utf16.contains(0xFFFF)
            && !key.unicodeScalars.contains { $0.properties.isWhitespace && $0 != " " }
    }
}
