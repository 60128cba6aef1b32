import Testing
@testable import HearthCore

/// §1.7 node hash.
@Suite("Node hash")
struct HashTests {
    /// The spec's test vectors (from the JS SDK's node tests).
    @Test(arguments: [
        ("4", "eVih19a6ZDz3NL32uVBtg9KSgQY="),
        ("4.5623", "vf1CL0tIRwXXunHcG/irRECk3lY="),
        (#""hey guys""#, "CUNLXWpCVoJE6z7z1vE57lGaKAU="),
        ("true", "E5z61QM0lN/U2WsOnusszCTkR8M="),
        (#"{"intNode":4,"doubleNode":4.5623,"stringNode":"hey guys","boolNode":true}"#, "6Mc4jFmNdrLVIlJJjz2/MakTK9I="),
        (#"{"root":{"c":{".value":99,".priority":"abc"},".priority":"def"}}"#, "Fm6tzN4CVEu5WxFDZUdTtqbTVaA="),
        (#"{"root":{"c":{".value":99,".priority":42},".priority":3.14}}"#, "B15QCqrzCxrI5zz1y00arWqFRFg="),
    ])
    func specVectors(json: String, expected: String) {
        #expect(node(json).hash == expected)
    }

    @Test func emptyHashIsEmptyString() {
        #expect(Node.empty.hash == "")
        #expect(node("{}").hash == "")
        #expect(node(#"{"a":null}"#).hash == "")
    }

    @Test func fourAsDoubleOrIntHashesTheSame() {
        #expect(Node.leaf(.int(4)).hash == Node.leaf(.double(4)).hash)
        #expect(Node.leaf(.int(4)).hash == "eVih19a6ZDz3NL32uVBtg9KSgQY=")
    }

    /// Hash texts built by hand from the §1.7 rules and hashed with an independent SHA-1.
    @Test(arguments: [
        (#"{"a":1}"#, ":a:" + TestSHA1.base64Digest("number:3ff0000000000000")),
        ("-2", "number:c000000000000000"),
        ("0", "number:0000000000000000"),
        ("false", "boolean:false"),
        (#""""#, "string:"),
        (#""é😀""#, "string:é😀"),
        (#"{".value":"x",".priority":1}"#, "priority:number:3ff0000000000000:string:x"),
        (#"{".value":true,".priority":"p:q"}"#, "priority:string:p:q:boolean:true"),
    ])
    func hashText(json: String, text: String) {
        #expect(node(json).hash == TestSHA1.base64Digest(text))
    }

    /// Children are hashed in priority order (none < numbers < strings), ties by key order — not plain key order.
    @Test func childrenInPriorityOrder() {
        let n = node(#"{"a":{".value":1,".priority":"z"},"b":{".value":2,".priority":5},"c":3,"10":4,"9":{".value":5,".priority":5}}"#)
        // No priority first ("10" before "c": integer-like keys first), then priority 5 ("9" before "b"), then "z" ("a").
        let h = { (j: String) in node(j).hash }
        let text = ":10:" + h("4") + ":c:" + h("3") + ":9:" + h(#"{".value":5,".priority":5}"#) + ":b:"
            + h(#"{".value":2,".priority":5}"#) + ":a:" + h(#"{".value":1,".priority":"z"}"#)
        #expect(n.hash == TestSHA1.base64Digest(text))
    }

    @Test func priorityOrderHelper() {
        #expect(Node.comparePriority(nil, nil) == 0)
        #expect(Node.comparePriority(nil, .int(0)) < 0)
        #expect(Node.comparePriority(.int(100), .string("")) < 0)
        #expect(Node.comparePriority(.string("a"), nil) > 0)
        #expect(Node.comparePriority(.double(1.5), .int(2)) < 0)
    }

    @Test func hashChangesWithValueAndPriority() {
        let base = node(#"{"a":1,"b":{"c":"x"}}"#)
        let variants = [
            node(#"{"a":2,"b":{"c":"x"}}"#), node(#"{"a":1,"b":{"c":"y"}}"#), node(#"{"a":1,"b":{"c":"x"},".priority":1}"#),
            node(#"{"a":"1","b":{"c":"x"}}"#), node(#"{"a":1,"b":{"d":"x"}}"#), node(#"{"a":true,"b":{"c":"x"}}"#),
        ]
        for v in variants { #expect(v.hash != base.hash, "\(v.jsonString(format: .export))") }
        #expect(node(#"{"b":{"c":"x"},"a":1}"#).hash == base.hash)
        #expect(base.hash.count == 28)
    }

    @Test func independentSHA1SelfCheck() {
        #expect(TestSHA1.hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(TestSHA1.hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(TestSHA1.hex(String(repeating: "a", count: 1000)) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
        #expect(TestSHA1.base64Digest("number:4010000000000000") == "eVih19a6ZDz3NL32uVBtg9KSgQY=")
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64RFC4648(input: String, expected: String) {
        #expect(base64(Array(input.utf8)) == expected)
    }

    @Test func base64AllBytes() {
        #expect(base64([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(base64([0, 0, 0]) == "AAAA")
    }
}

/// A straightforward FIPS 180-4 SHA-1 used only to build expected hashes independently of swift-crypto.
enum TestSHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var m = message
        let bitLength = UInt64(message.count) * 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for i in (0..<8).reversed() { m.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        for chunk in stride(from: 0, to: m.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for t in 0..<16 {
                let j = chunk + t * 4
                w[t] = UInt32(m[j]) << 24 | UInt32(m[j + 1]) << 16 | UInt32(m[j + 2]) << 8 | UInt32(m[j + 3])
            }
            for t in 16..<80 {
                let x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]
                w[t] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for t in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[t]
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = temp
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }

    static func hex(_ s: String) -> String {
        digest(Array(s.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func base64Digest(_ s: String) -> String {
        // Encoded here too (not via HearthCore.base64) so the expectation is fully independent.
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let d = digest(Array(s.utf8))
        var out = ""
        var i = 0
        while i < d.count {
            let b0 = Int(d[i]), b1 = i + 1 < d.count ? Int(d[i + 1]) : 0, b2 = i + 2 < d.count ? Int(d[i + 2]) : 0
            out.append(table[b0 >> 2])
            out.append(table[(b0 & 3) << 4 | b1 >> 4])
            out.append(i + 1 < d.count ? table[(b1 & 15) << 2 | b2 >> 6] : "=")
            out.append(i + 2 < d.count ? table[b2 & 63] : "=")
            i += 3
        }
        return out
    }
}
