import Testing
@testable import HearthCore

/// §1.3: integer-like keys and "nameCompare".
@Suite("Key order")
struct KeyOrderTests {
    @Test(arguments: [
        ("0", 0), ("42", 42), ("-7", -7), ("007", 7), ("-0", 0), ("-007", -7), ("2147483647", Int32.max),
        ("-2147483648", Int32.min), ("0000000000", 0), ("00000000001", 1), ("1234567890", 1_234_567_890),
    ] as [(String, Int32)])
    func integerLike(key: String, value: Int32) {
        #expect(Key(key).intValue == value)
    }

    /// `^-?0*\d{1,10}$`: any number of leading zeros is allowed before the 1–10 significant digits.
    @Test(arguments: [
        ("0000000000007", 7), ("-0000000000007", -7), ("000000000000000000002147483647", Int32.max),
    ] as [(String, Int32)])
    func integerLikeWithManyLeadingZeros(key: String, value: Int32) {
        #expect(Key(key).intValue == value)
        #expect(Key(key) > Key(String(value)), "numerically equal to its short form, and longer, so after it")
        #expect(Key(key) < Key("-"), "an integer-like key sorts before every non-integer key")
        #expect(Key(key) < Key("2147483648"), "…including the too-large numeral 2147483648")
    }

    @Test(arguments: [
        "2147483648", "-2147483649", "99999999999", "12345678901", "1.5", "1e3", " 1", "1 ", "+1", "", "-", "--1",
        "0x1", "a1", "1a", "١", "１", "-a", "00-1",
    ])
    func notIntegerLike(key: String) {
        #expect(Key(key).intValue == nil)
    }

    /// The spec's own example chain, plus push-id-like keys after all integer keys.
    @Test func specExampleOrder() {
        let chain = ["1", "2", "10", "-", "A", "a"].map(Key.init)
        for (a, b) in zip(chain, chain.dropFirst()) {
            #expect(a < b, "\(a) < \(b)")
            #expect(!(b < a))
            #expect(Key.compare(a, b) < 0 && Key.compare(b, a) > 0)
        }
        #expect(Key("2147483647") < Key("-Ost90fdbeEJ4iC_e3rZ"))
    }

    @Test(arguments: [
        // Numeric comparison among integer-like keys.
        ("-1", "0"), ("-10", "-2"), ("2", "10"), ("9", "10"), ("-2147483648", "2147483647"), ("007", "10"),
        ("6", "007"),
        // Numerically equal: shorter first.
        ("1", "01"), ("01", "001"), ("7", "007"), ("0", "-0"), ("0", "00"),
        // Integer-like before everything else.
        ("2147483647", "2147483648"), ("10", "1.5"), ("-5", "-"), ("999", "a"), ("1", " 1"), ("0", "+0"),
        // Neither: UTF-16 code-unit order.
        ("2147483648", "3a"), ("-", "A"), ("A", "_"), ("_", "a"), ("a", "aa"), ("a", "b"), ("B", "a"),
        ("Z", "a"), ("1.5", "1e3"), ("", "a"),
        // U+FF5E is one code unit; 😀 is the surrogate pair D83D DE00, and 0xD83D < 0xFF5E (scalar order says the opposite).
        ("😀", "\u{FF5E}"), ("a😀", "a\u{FFFD}"), ("\u{E000}", "\u{FF5E}"), ("\u{10000}", "\u{E000}"),
        ("é", "😀"), ("\u{7F}", "\u{80}"),
    ])
    func ordered(a: String, b: String) {
        #expect(Key.compare(Key(a), Key(b)) < 0, "\(a) < \(b)")
        #expect(Key.compare(Key(b), Key(a)) > 0, "\(b) > \(a)")
        #expect(Key(a) < Key(b))
    }

    /// Equal means the same UTF-16 code units: canonically equivalent but different strings are different keys
    /// (JavaScript and the server compare code units), and order between them follows code units.
    @Test func canonicallyEquivalentKeysAreDistinct() {
        let composed = Key("\u{E9}")  // é
        let decomposed = Key("e\u{301}")  // e + combining acute
        #expect(Key.compare(decomposed, composed) < 0, "0x0065 < 0x00E9")
        #expect(Key.compare(composed, decomposed) > 0)
        #expect(compareUTF16("\u{E9}", "e\u{301}") > 0)
    }

    @Test func compareUTF16Basics() {
        #expect(compareUTF16("", "") == 0)
        #expect(compareUTF16("abc", "abc") == 0)
        #expect(compareUTF16("ab", "abc") < 0)
        #expect(compareUTF16("abc", "ab") > 0)
        #expect(compareUTF16("😀", "\u{FF5E}") < 0)
        #expect(compareUTF16("\u{FF5E}", "😀") > 0)
    }

    @Test func equalKeys() {
        for s in ["a", "1", "007", "-0", "😀", ""] {
            #expect(Key.compare(Key(s), Key(s)) == 0)
            #expect(Key(s) == Key(s))
            #expect(!(Key(s) < Key(s)))
        }
    }

    /// Sorting random keys with `Key.<` gives a strict total order consistent with the reference rules.
    @Test(arguments: [5, 6, 7] as [UInt64])
    func randomKeysFormATotalOrder(seed: UInt64) {
        var r = SplitMix64(seed: seed)
        var keys: [Key] = []
        for _ in 0..<300 {
            switch r.below(4) {
            case 0: keys.append(Key(String(r.below(2000) - 1000)))
            case 1: keys.append(Key(String(repeating: "0", count: r.below(3)) + String(r.below(100))))
            case 2: keys.append(Key(r.pick(["-", "-0", "-00", "2147483647", "2147483648", "-2147483648", "-2147483649", "1.0", "+1"])))
            default: keys.append(Key(Gen.string(&r, maxLength: 4)))
            }
        }
        let sorted = keys.sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(Key.compare(a, b) <= 0)
            #expect(reference(a.string, b.string) <= 0, "\(a.string) vs \(b.string)")
        }
        for _ in 0..<3000 {
            let (a, b, c) = (r.pick(keys), r.pick(keys), r.pick(keys))
            #expect(Key.compare(a, b).signum() == -Key.compare(b, a).signum())
            #expect(Key.compare(a, b).signum() == reference(a.string, b.string).signum(), "\(a.string) vs \(b.string)")
            if Key.compare(a, b) < 0, Key.compare(b, c) < 0 { #expect(Key.compare(a, c) < 0) }
        }
    }

    /// nameCompare written independently from the spec text (regex + Int32 range, numeric, shorter, UTF-16).
    func reference(_ a: String, _ b: String) -> Int {
        func intValue(_ s: String) -> Int64? {
            var u = Array(s.utf8)
            var negative = false
            if u.first == UInt8(ascii: "-") { negative = true; u.removeFirst() }
            guard !u.isEmpty, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            while u.count > 1, u.first == 0x30 { u.removeFirst() }
            guard u.count <= 10 else { return nil }
            let v = (negative ? -1 : 1) * u.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
            return (Int64(Int32.min)...Int64(Int32.max)).contains(v) ? v : nil
        }
        let (ua, ub) = (Array(a.utf16), Array(b.utf16))
        if ua == ub { return 0 }
        let lex = ua.lexicographicallyPrecedes(ub) ? -1 : 1
        switch (intValue(a), intValue(b)) {
        case let (x?, y?):
            if x != y { return x < y ? -1 : 1 }
            if ua.count != ub.count { return ua.count < ub.count ? -1 : 1 }
            return lex
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return lex
        }
    }
}
