import Foundation

/// The search key of a text: what an app stores beside a name so that an ordered query finds it by a
/// prefix typed in any case, with or without accents (`Jó` finds `József` and `Jozsef`).
///
/// ```swift
/// // A trigger stores the key (clients cannot fake it); `.indexOn: ["searchKey"]` in the rules.
/// writes["users/\(uid)/searchKey"] = .string(SearchKey.normalize(displayName))
/// // The app queries by prefix (the SDK's `queryStarting(withPrefix:)` does this):
/// let range = SearchKey.prefixRange("Jó")   // ("jo", "jo\u{FFFF}")
/// ```
///
/// The result depends only on Unicode data, never on a locale, so the server, the SDK and every
/// platform compute the same key (see ``normalize(_:)``).
public enum SearchKey {
    /// The longest key ``normalize(_:)`` returns, in characters (grapheme clusters). Longer texts are cut:
    /// a prefix longer than this finds every text whose first `maxLength` characters match.
    public static let maxLength = 200

    /// Sorts after every continuation of a normalized prefix: the largest UTF-16 code unit. See
    /// ``prefixRange(_:)``.
    public static let rangeEnd: Character = "\u{FFFF}"

    /// The normalized form of `text`, for storing and for searching:
    ///
    /// 1. compatibility decomposition (NFKD): `Ａ`→`A`, `ﬁ`→`fi`, `é`→`e` + a combining accent,
    ///    a no-break space → a space;
    /// 2. lowercased with Unicode's default (locale-independent) mapping, then decomposed again;
    /// 3. combining marks (nonspacing and enclosing: accents, dakuten, variation selectors), default-ignorable
    ///    code points (soft hyphen, zero-width joiners, BOM), other control characters and the noncharacters
    ///    `U+FFFE`/`U+FFFF` removed;
    /// 4. letters without a decomposition spelled in ASCII: `ß`→`ss`, `æ`→`ae`, `œ`→`oe`, `ø`→`o`, `ł`→`l`,
    ///    `đ`/`ð`→`d`, `þ`→`th`, `ħ`→`h`, `ı`→`i`, `ŧ`→`t`; a final `ς`→`σ`;
    /// 5. runs of whitespace collapsed to one space, and trimmed;
    /// 6. cut to ``maxLength`` characters.
    ///
    /// Other scripts, emoji and CJK pass through (decomposed, without their combining marks).
    /// `normalize(normalize(x)) == normalize(x)`.
    ///
    /// Why not Foundation's `folding(options:locale:)`: on Linux it keeps `ø`, `ł`, `æ`, `đ` and `ı`, and it
    /// may differ between platforms; this uses only Unicode's decomposition and case data.
    public static func normalize(_ text: String) -> String {
        // NFKD, lowercase, NFKD again: lowercasing can produce a character with a decomposition (and
        // decomposing can produce capitals: `㎒` is `MHz`), and the result must not change when normalized again.
        let decomposed = text.decomposedStringWithCompatibilityMapping.lowercased().decomposedStringWithCompatibilityMapping
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in decomposed.unicodeScalars {
            let properties = scalar.properties
            if properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if isDropped(scalar) { continue }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            if let spelled = letters[scalar] {
                out.append(contentsOf: spelled.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        let result = String(out)
        guard result.count > maxLength else { return result }
        var cut = String(result.prefix(maxLength))
        while cut.unicodeScalars.last == " " { cut.unicodeScalars.removeLast() }
        return cut
    }

    /// The value range an ordered query takes to find every stored key starting with `prefix`:
    /// `startAt(start)`, `endAt(end)`. `start` is `normalize(prefix)`, `end` is `start` followed by `U+FFFF`.
    ///
    /// Hearth (as Firebase) orders strings by UTF-16 code units, in memory, in SQLite and in PostgreSQL
    /// indexes alike. A key that starts with `start` continues with a code unit of at most `U+FFFF`, and a
    /// normalized key never contains `U+FFFF` (it is removed), so every such key sorts strictly between
    /// `start` and `end`; a key that does not start with `start` differs from it at some code unit and sorts
    /// before `start` or after `end`. Firebase's usual `U+F8FF` would miss keys continuing with a code unit
    /// above it (`U+FFFD`, a few compatibility forms that keep their code point).
    ///
    /// An empty `prefix` gives `("", "\u{FFFF}")`: every string key.
    public static func prefixRange(_ prefix: String) -> (start: String, end: String) {
        let start = normalize(prefix)
        return (start, start + String(rangeEnd))
    }

    /// Removed from keys: see ``normalize(_:)``, step 3.
    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control: return true
        default: return properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint
        }
    }

    /// Lowercase letters that neither decompose nor fold into ASCII letters, spelled as readers type them.
    private static let letters: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ħ": "h",
        "ı": "i", "ŧ": "t", "ς": "σ",
    ]
}
