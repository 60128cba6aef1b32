import Testing
@testable import HearthCore

@Suite("JSON reader")
struct JSONReaderTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .int(0)),
        ("-7", .int(-7)),
        ("42", .int(42)),
        ("\"\"", .string("")),
        ("\"hi\"", .string("hi")),
        ("[]", .array([])),
        ("{}", .object([])),
        ("[1,\"a\",null,true,{}]", .array([.int(1), .string("a"), .null, .bool(true), .object([])])),
        (#"{"b":1,"a":[2.5,{"c":null}]}"#, .object([JSONMember("b", .int(1)), JSONMember("a", .array([.double(2.5), .object([JSONMember("c", .null)])]))])),
        (" \t\r\n [ 1 , 2 ] \n", .array([.int(1), .int(2)])),
        (#"{ "k" : "v" }"#, .object([JSONMember("k", .string("v"))])),
        ("[[[]]]", .array([.array([.array([])])])),
    ])
    func validDocuments(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test func objectMembersKeepOrderAndDuplicates() throws {
        let v = try parse(#"{"z":1,"a":2,"z":3}"#)
        #expect(v == .object([JSONMember("z", .int(1)), JSONMember("a", .int(2)), JSONMember("z", .int(3))]))
        #expect(v["z"] == .int(3), "subscript: last duplicate wins")
        #expect(v["missing"] == nil)
        #expect(JSONValue.int(1)["z"] == nil)
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud83d\ude00x""#, "😀x"),
        (#""a\uD834\uDD1Eb""#, "a\u{1D11E}b"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""\uD800\uDC00""#, "\u{10000}"),
        (#""\uFFFF\uFEFF""#, "\u{FFFF}\u{FEFF}"),
        ("\"raw é 😀 \u{7F}\"", "raw é 😀 \u{7F}"),
        (#""mixed é\n😀""#, "mixed é\n😀"),
    ])
    func stringEscapes(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .double(9.223372036854775808e18)),
        ("-9223372036854775809", .double(-9.223372036854775808e18)),
        ("1.0", .double(1)),
        ("1e3", .double(1000)),
        ("1E3", .double(1000)),
        ("1e+3", .double(1000)),
        ("25e-1", .double(2.5)),
        ("-0", .int(0)),
        ("0", .int(0)),
        ("0.5", .double(0.5)),
        ("-1.5e2", .double(-150)),
        ("1e-400", .double(0)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
    ])
    func numbers(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test func negativeZeroDoubleKeepsItsSign() throws {
        guard case .double(let d) = try parse("-0.0") else {
            Issue.record("-0.0 should read as a double")
            return
        }
        #expect(d == 0 && d.sign == .minus)
        #expect(try parse("-0") == .int(0))
    }

    @Test(arguments: [
        "", " ", "nul", "nulll", "tru", "True", "NaN", "-NaN", "Infinity", "-Infinity", "inf", "1e400", "-1e400",
        "01", "-01", "00", "+1", ".5", "1.", "1.e3", "1e", "1e+", "-", "--1", "0x10", "1 2",
        "[1,]", "[,1]", "[1 2]", "[", "]", "[1", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#, "{'a':1}",
        #"{"a" 1}"#, #"{"a":1"#, #"{"a":1 "b":2}"#, "\"abc", "\"", "\"\\", "\"\\\"", #""\x""#, #""\u12""#, #""\u12G4""#,
        #""\uD800""#, #""\uD800x""#, #""\uD800\n""#, #""\uDC00""#, #""\uDFFF\uD800""#, #""\uD800\uD800""#, #""\uD800\u0041""#,
        "\"a\u{0}b\"", "\"a\nb\"", "\"tab\there\"", "\"\u{1F}\"",
        "null x", "{} {}", "[]]", "\"a\"\"b\"", "1 ,", "\u{C}1", "1\u{0}", "\u{FEFF}1",
    ])
    func rejects(text: String) {
        #expect(throws: JSONError.self) { try parse(text) }
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],  // invalid byte
        [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8-encoded surrogate
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
        [0x22, 0x5C, 0x6E, 0xFF, 0x22],  // invalid byte after an escape (slow path)
        [0xEF, 0xBB, 0xBF, 0x31],  // BOM is not whitespace
    ] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONError.self) { try JSONValue.parse(bytes) }
    }

    @Test func acceptsValidMultibyteUTF8Bytes() throws {
        let bytes: [UInt8] = [0x22, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0x22]
        #expect(try JSONValue.parse(bytes) == .string("é€😀"))
    }

    @Test func depthLimit() throws {
        let reader = JSONReader(maxDepth: 3)
        #expect(try reader.parse(Array("[[[1]]]".utf8)) == .array([.array([.array([.int(1)])])]))
        #expect(try reader.parse(Array(#"{"a":{"b":[]}}"#.utf8)) != .null)
        #expect(throws: JSONError.self) { try reader.parse(Array("[[[[1]]]]".utf8)) }
        #expect(throws: JSONError.self) { try reader.parse(Array(#"{"a":{"b":[{}]}}"#.utf8)) }
        // Scalars do not count towards depth.
        #expect(try JSONReader(maxDepth: 0).parse(Array("5".utf8)) == .int(5))
        #expect(throws: JSONError.self) { try JSONReader(maxDepth: 0).parse(Array("[]".utf8)) }
    }

    @Test func defaultDepthIs512() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(try parse(ok) != .null)
        #expect(throws: JSONError.self) { try parse(deep) }
        // A hostile document far beyond the limit is refused rather than overflowing the stack.
        let hostile = String(repeating: "[", count: 200_000)
        #expect(throws: JSONError.self) { try parse(hostile) }
    }

    @Test func errorsCarryAnOffsetAndNoInput() {
        do {
            _ = try parse(#"{"secret":01}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.offset > 0 && error.offset <= 12)
            #expect(!error.description.contains("secret"))
            #expect(error.description.hasPrefix("invalid JSON at byte"))
        }
    }

    @Test func accessors() throws {
        #expect(JSONValue.int(3).doubleValue == 3)
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
        #expect(JSONValue.string("x").doubleValue == nil)
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.int(1).stringValue == nil)
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test(arguments: [
        (JSONValue.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(-12), "-12"),
        (.int(.min), "-9223372036854775808"),
        (.double(1.0), "1"),
        (.double(-0.0), "0"),
        (.double(2.5), "2.5"),
        (.double(1e3), "1000"),
        (.double(9007199254740991), "9007199254740991"),
        (.double(0.1), "0.1"),
        (.string("a\"b\\c/d"), #""a\"b\\c/d""#),
        (.string("\n\r\t\u{8}\u{C}"), #""\n\r\t\b\f""#),
        (.string("\u{0}\u{1}\u{1F}\u{7F}"), #""\u0000\u0001\u001f\u007f""#),
        (.string("é😀"), "\"é😀\""),
        // Escapes at the start, between runs of plain bytes and at the end.
        (.string("\"head.mid\u{1}dle\nx\\"), #""\"head.mid\u0001dle\nx\\""#),
        (.string("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln"), "\"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln\""),
        (.array([]), "[]"),
        (.object([]), "{}"),
        (.array([.int(1), .null, .array([])]), "[1,null,[]]"),
        (.object([JSONMember("b", .int(1)), JSONMember("a", .object([JSONMember("c", .bool(false))]))]), #"{"b":1,"a":{"c":false}}"#),
    ])
    func compact(value: JSONValue, expected: String) {
        #expect(value.jsonString == expected)
        #expect(value.jsonBytes == Array(expected.utf8))
    }

    @Test func largeIntegralDoublesStayDoubles() throws {
        for d in [9007199254740992.0, -9007199254740992.0, 1e21, 1.7976931348623157e308] {
            let text = JSONValue.double(d).jsonString
            #expect(try parse(text) == .double(d), "\(text)")
        }
    }

    @Test func pretty() throws {
        var w = JSONWriter(pretty: true)
        let v = JSONValue.object([
            JSONMember("a", .array([.int(1), .int(2)])), JSONMember("b", .object([])), JSONMember("c", .array([])),
        ])
        w.write(v)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == "{\n  \"a\" : [\n    1,\n    2\n  ],\n  \"b\" : {},\n  \"c\" : []\n}")
        #expect(try JSONValue.parse(w.bytes) == v)
    }

    @Test(arguments: [
        #"{"a":[1,2.5,"x",null,true,false,{"b":{}}],"c":"\u0001\"\\é😀"}"#,
        "[-9223372036854775808,9223372036854775807,-0.0,5e-324,1.7976931348623157e308]",
        #""\uD83D\uDE00 \u0000 \u007F""#,
        "[[[[[[]]]]]]",
    ])
    func writerThenReaderRoundTrip(text: String) throws {
        let v = try parse(text)
        let again = try JSONValue.parse(v.jsonBytes)
        #expect(again == normalisedNumbers(v))
        #expect(again.jsonBytes == v.jsonBytes, "writing is idempotent")
    }
}
