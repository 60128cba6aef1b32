import HearthTestSupport
import Testing
@testable import HearthCore

/// Seeded property and mutation fuzzing of the JSON reader/writer pair, checked against a small independent
/// reference parser written from RFC 8259 (below).
@Suite("JSON fuzz", .cpuHeavy)
struct JSONFuzzTests {
    @Test func splitMix64KnownAnswer() {
        var r = SplitMix64(seed: 0)
        #expect(r.next() == 0xE220_A839_7B1D_CDAF)
        #expect(r.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test(arguments: [1, 2, 3, 0xDEAD_BEEF] as [UInt64])
    func randomTreesRoundTrip(seed: UInt64) throws {
        var r = SplitMix64(seed: seed)
        for i in 0..<1500 {
            let v = Gen.json(&r)
            let bytes = v.jsonBytes
            let back: JSONValue
            do {
                back = try JSONValue.parse(bytes)
            } catch {
                Issue.record("seed \(seed) #\(i): writer output rejected (\(error)): \(String(decoding: bytes, as: UTF8.self))")
                continue
            }
            #expect(back == normalisedNumbers(v), "seed \(seed) #\(i)")
            // Swift's String == is canonical equivalence; compare bytes too so no code unit is silently changed.
            #expect(back.jsonBytes == bytes, "seed \(seed) #\(i)")
            // The reference parser agrees on the writer's output.
            #expect(ReferenceJSON.parse(bytes, maxDepth: 512) == back, "seed \(seed) #\(i)")
            // Pretty output reads back to the same value.
            var w = JSONWriter(pretty: true)
            w.write(v)
            #expect(try JSONValue.parse(w.bytes) == back, "seed \(seed) #\(i) pretty")
        }
    }

    @Test func nonIntegralDoublesRoundTripExactly() throws {
        var r = SplitMix64(seed: 99)
        for _ in 0..<20_000 {
            let d = Gen.finiteDouble(&r)
            guard d != d.rounded() else { continue }
            let back = try JSONValue.parse(JSONValue.double(d).jsonBytes)
            #expect(back == .double(d), "\(d)")
        }
    }

    static let interestingBytes: [UInt8] = Array(#"{}[],:"\u0123456789eE.+-tfnrl aDdEFf"#.utf8)
        + [0x00, 0x08, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]

    static func mutate(_ input: [UInt8], _ r: inout SplitMix64) -> [UInt8] {
        var b = input
        for _ in 0..<(1 + r.below(3)) {
            switch r.below(7) {
            case 0 where !b.isEmpty: b[r.below(b.count)] = r.pick(interestingBytes)
            case 1: b.insert(r.pick(interestingBytes), at: r.below(b.count + 1))
            case 2 where !b.isEmpty: b.remove(at: r.below(b.count))
            case 3: b = Array(b.prefix(r.below(b.count + 1)))  // truncate
            case 4 where !b.isEmpty:  // duplicate a slice
                let s = r.below(b.count)
                let e = s + r.below(min(8, b.count - s) + 1)
                b.insert(contentsOf: b[s..<e], at: r.below(b.count + 1))
            case 5 where !b.isEmpty: b[r.below(b.count)] ^= UInt8(1 << r.below(8))  // bit flip
            default: b.insert(UInt8(truncatingIfNeeded: r.next()), at: r.below(b.count + 1))
            }
        }
        return b
    }

    /// Mutated and truncated documents: the reader returns a value or throws `JSONError` (never traps), agrees with
    /// the reference parser on acceptance and on the value, and anything it accepts re-serialises to accepted JSON.
    @Test(arguments: [11, 22, 33, 44] as [UInt64])
    func mutatedInputs(seed: UInt64) throws {
        var r = SplitMix64(seed: seed)
        var accepted = 0
        var rejected = 0
        let reader = JSONReader(maxDepth: 6)
        for i in 0..<5000 {
            let base = Gen.json(&r, maxDepth: 4).jsonBytes
            let input = JSONFuzzTests.mutate(base, &r)
            let expected = ReferenceJSON.parse(input, maxDepth: 6)
            let actual: JSONValue?
            do {
                actual = try reader.parse(input)
            } catch {
                actual = nil
            }
            #expect(actual == expected, "seed \(seed) #\(i): \(input)")
            guard let actual else {
                rejected += 1
                continue
            }
            accepted += 1
            let rewritten = actual.jsonBytes
            let reread = try? reader.parse(rewritten)
            #expect(reread == normalisedNumbers(actual), "seed \(seed) #\(i): re-serialised output not accepted")
        }
        // The mix must exercise both outcomes, or the test proves nothing.
        #expect(accepted > 100 && rejected > 100, "accepted \(accepted), rejected \(rejected)")
    }

    @Test func randomByteSoupNeverTraps() {
        var r = SplitMix64(seed: 7)
        for i in 0..<20_000 {
            let n = r.below(24)
            let input = (0..<n).map { _ in r.chance(80) ? r.pick(JSONFuzzTests.interestingBytes) : UInt8(truncatingIfNeeded: r.next()) }
            let actual = try? JSONValue.parse(input)
            #expect(actual == ReferenceJSON.parse(input, maxDepth: 512), "#\(i): \(input)")
        }
    }

    @Test func everyPrefixOfADocumentIsHandled() throws {
        let doc = Array(#" {"a" : [1, -2.5e+3, true, false, null, "\u00e9\uD83D\uDE00\n"], "b": {"c": {}} } "#.utf8)
        // Every proper prefix that stops before the closing brace is incomplete and must be refused.
        let close = doc.lastIndex(of: UInt8(ascii: "}"))!
        for n in 0...close {
            let prefix = Array(doc.prefix(n))
            let ok = (try? JSONValue.parse(prefix)) != nil
            #expect(!ok, "prefix of length \(n) accepted")
        }
        #expect((try? JSONValue.parse(Array(doc.prefix(close + 1)))) != nil, "trailing whitespace is optional")
        #expect((try? JSONValue.parse(doc)) != nil)
    }
}

/// An independent, deliberately simple RFC 8259 parser (recursive descent over bytes with its own UTF-8 validation)
/// used as an oracle. Numbers that are integers fitting Int64 become `.int`; others must be finite doubles.
enum ReferenceJSON {
    static func parse(_ bytes: [UInt8], maxDepth: Int) -> JSONValue? {
        var p = Parser(b: bytes, maxDepth: maxDepth)
        p.ws()
        guard let v = p.value(depth: 0) else { return nil }
        p.ws()
        return p.i == bytes.count ? v : nil
    }

    struct Parser {
        let b: [UInt8]
        let maxDepth: Int
        var i = 0

        init(b: [UInt8], maxDepth: Int) {
            self.b = b
            self.maxDepth = maxDepth
        }

        var peek: UInt8? { i < b.count ? b[i] : nil }

        mutating func ws() { while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 } }

        mutating func lit(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= b.count, Array(b[i..<i + u.count]) == u else { return false }
            i += u.count
            return true
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard let c = peek else { return nil }
            switch c {
            case UInt8(ascii: "n"): return lit("null") ? .null : nil
            case UInt8(ascii: "t"): return lit("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return lit("false") ? .bool(false) : nil
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "["):
                guard depth + 1 <= maxDepth else { return nil }
                i += 1
                ws()
                var out: [JSONValue] = []
                if peek == UInt8(ascii: "]") { i += 1; return .array(out) }
                while true {
                    ws()
                    guard let v = value(depth: depth + 1) else { return nil }
                    out.append(v)
                    ws()
                    if peek == UInt8(ascii: ",") { i += 1; continue }
                    if peek == UInt8(ascii: "]") { i += 1; return .array(out) }
                    return nil
                }
            case UInt8(ascii: "{"):
                guard depth + 1 <= maxDepth else { return nil }
                i += 1
                ws()
                var out: [JSONMember] = []
                if peek == UInt8(ascii: "}") { i += 1; return .object(out) }
                while true {
                    ws()
                    guard peek == UInt8(ascii: "\""), let k = string() else { return nil }
                    ws()
                    guard peek == UInt8(ascii: ":") else { return nil }
                    i += 1
                    ws()
                    guard let v = value(depth: depth + 1) else { return nil }
                    out.append(JSONMember(k, v))
                    ws()
                    if peek == UInt8(ascii: ",") { i += 1; continue }
                    if peek == UInt8(ascii: "}") { i += 1; return .object(out) }
                    return nil
                }
            default: return number()
            }
        }

        static func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }

        mutating func number() -> JSONValue? {
            let start = i
            var integral = true
            if peek == UInt8(ascii: "-") { i += 1 }
            if peek == UInt8(ascii: "0") {
                i += 1
            } else if Parser.isDigit(peek) {
                while Parser.isDigit(peek) { i += 1 }
            } else {
                return nil
            }
            if peek == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard Parser.isDigit(peek) else { return nil }
                while Parser.isDigit(peek) { i += 1 }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard Parser.isDigit(peek) else { return nil }
                while Parser.isDigit(peek) { i += 1 }
            }
            let text = String(decoding: b[start..<i], as: UTF8.self)
            if integral, let n = Int64(text) { return .int(n) }
            guard let d = Double(text), d.isFinite else { return nil }
            return .double(d)
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[i]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: return nil
                }
                v = v * 16 + d
                i += 1
            }
            return v
        }

        /// Decodes one UTF-8 scalar starting at `i` (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
        mutating func utf8Scalar() -> Unicode.Scalar? {
            let c0 = b[i]
            let (len, minValue, initial): (Int, UInt32, UInt32)
            switch c0 {
            case 0x00...0x7F: i += 1; return Unicode.Scalar(c0)
            case 0xC2...0xDF: (len, minValue, initial) = (2, 0x80, UInt32(c0 & 0x1F))
            case 0xE0...0xEF: (len, minValue, initial) = (3, 0x800, UInt32(c0 & 0x0F))
            case 0xF0...0xF4: (len, minValue, initial) = (4, 0x10000, UInt32(c0 & 0x07))
            default: return nil
            }
            guard i + len <= b.count else { return nil }
            var v = initial
            for k in 1..<len {
                let c = b[i + k]
                guard c & 0xC0 == 0x80 else { return nil }
                v = v << 6 | UInt32(c & 0x3F)
            }
            guard v >= minValue, v <= 0x10FFFF, !(0xD800...0xDFFF).contains(v) else { return nil }
            i += len
            return Unicode.Scalar(v)
        }

        mutating func string() -> String? {
            i += 1
            var out = String.UnicodeScalarView()
            while true {
                guard let c = peek else { return nil }
                if c == UInt8(ascii: "\"") { i += 1; return String(out) }
                if c < 0x20 { return nil }
                if c != UInt8(ascii: "\\") {
                    guard let s = utf8Scalar() else { return nil }
                    out.append(s)
                    continue
                }
                i += 1
                guard let e = peek else { return nil }
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{8}")
                case UInt8(ascii: "f"): out.append("\u{C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    guard let u = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(u) {
                        guard lit("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        out.append(Unicode.Scalar(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))!)
                    } else if (0xDC00...0xDFFF).contains(u) {
                        return nil
                    } else {
                        out.append(Unicode.Scalar(u)!)
                    }
                default: return nil
                }
            }
        }
    }
}
