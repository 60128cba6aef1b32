import Testing
@testable import HearthCore

/// §1.4 array rendering, §1.6 export format, shallow reads.
@Suite("Rendering")
struct RenderingTests {
    @Test(arguments: [
        (#"{"0":"a","1":"b","2":"c"}"#, #"["a","b","c"]"#),
        (#"{"0":"a","2":"c"}"#, #"["a",null,"c"]"#),
        (#"{"1":"a"}"#, #"[null,"a"]"#),
        (#"{"5":"a"}"#, #"{"5":"a"}"#),
        (#"{"01":"a"}"#, #"{"01":"a"}"#),
        (#"{"0":"a","01":"b"}"#, #"{"0":"a","01":"b"}"#),
        (#"{"-1":"a","0":"b"}"#, #"{"-1":"a","0":"b"}"#),
        (#"{"-0":"a"}"#, #"{"-0":"a"}"#),
        (#"{"0":"a","x":"b"}"#, #"{"0":"a","x":"b"}"#),
        (#"{"0":1,"1":2,"3":4}"#, "[1,2,null,4]"),  // max 3 < 2·3
        (#"{"0":1,"1":2,"4":5}"#, "[1,2,null,null,5]"),  // 4 < 2·3
        (#"{"0":1,"5":2}"#, #"{"0":1,"5":2}"#),  // 5 ≥ 4
        (#"{"0":1,"3":2}"#, "[1,null,null,2]"),  // 3 < 4
        (#"{"0":1,"4":2}"#, #"{"0":1,"4":2}"#),  // 4 ≥ 4
        ("[1,2,3]", "[1,2,3]"),
        ("[1,null,3]", "[1,null,3]"),
        (#"{"a":{"0":true,"1":{"0":"x"}}}"#, #"{"a":[true,["x"]]}"#),
        (#"{"2147483647":1}"#, #"{"2147483647":1}"#),
        (#"{"0":{"5":1}}"#, #"[{"5":1}]"#),
    ])
    func plainArrays(stored: String, expected: String) {
        let n = node(stored)
        #expect(sameJSON(rendered(n), expected), "\(n.jsonString())")
    }

    @Test func arrayRenderingIsExactText() {
        #expect(node(#"{"0":"a","2":"c"}"#).jsonString() == #"["a",null,"c"]"#)
        #expect(node(#"{"1":"a"}"#).jsonString() == #"[null,"a"]"#)
        #expect(node(#"{"b":1,"a":[1,2]}"#).jsonString() == #"{"a":[1,2],"b":1}"#, "children render in key order")
    }

    @Test func exportNeverMakesArrays() {
        #expect(sameJSON(rendered(node("[1,2,3]"), .export), #"{"0":1,"1":2,"2":3}"#))
        #expect(sameJSON(rendered(node(#"{"1":"a"}"#), .export), #"{"1":"a"}"#))
    }

    @Test func exportIncludesPriorities() {
        // §2.10: PUT /u/jack/.priority 7, then export.
        let u = node(#"{"jack":{".priority":7,"age":30,"name":"Jack","tags":["a","b"]}}"#)
        #expect(sameJSON(rendered(u, .export), #"{"jack":{".priority":7,"age":30,"name":"Jack","tags":{"0":"a","1":"b"}}}"#))
        #expect(sameJSON(rendered(u), #"{"jack":{"age":30,"name":"Jack","tags":["a","b"]}}"#), "plain reads omit priorities")

        let leaf = node(#"{".value":1,".priority":5}"#)
        #expect(sameJSON(rendered(leaf, .export), #"{".value":1,".priority":5}"#))
        #expect(leaf.jsonString() == "1")
        #expect(Node.leaf(.string("v")).jsonString(format: .export) == #""v""#, "a leaf without priority is bare")

        let nested = node(#"{"a":{".value":"x",".priority":"p"},"b":{"c":true,".priority":2.5}}"#)
        #expect(sameJSON(rendered(nested, .export), #"{"a":{".value":"x",".priority":"p"},"b":{".priority":2.5,"c":true}}"#))
        #expect(sameJSON(rendered(nested), #"{"a":"x","b":{"c":true}}"#))
    }

    @Test func emptyRendersAsNull() {
        #expect(Node.empty.jsonString() == "null")
        #expect(Node.empty.jsonString(format: .export) == "null")
    }

    @Test func prettyRendering() throws {
        let n = node(#"{"a":[1,2],"b":{"c":"d"}}"#)
        let text = String(decoding: n.jsonBytes(pretty: true), as: UTF8.self)
        #expect(text == "{\n  \"a\" : [\n    1,\n    2\n  ],\n  \"b\" : {\n    \"c\" : \"d\"\n  }\n}")
    }

    @Test func numbersRender() {
        #expect(Node.leaf(.double(2.5)).jsonString() == "2.5")
        #expect(Node.leaf(.int(-3)).jsonString() == "-3")
        #expect(node("1.0").jsonString() == "1")
        #expect(node("9223372036854775807").jsonString() == "9223372036854775807")
    }

    @Test(arguments: [
        (#"{"a":{"x":1},"b":2}"#, #"{"a":true,"b":true}"#),
        (#"{"dinosaurs":{"a":1},"scores":{"b":2}}"#, #"{"dinosaurs":true,"scores":true}"#),
        ("[5,6]", "[true,true]"),  // shallow of an array-like node still renders as an array (§1.4 applies)
        (#""leaf""#, #""leaf""#),
        ("12", "12"),
        ("null", "null"),
    ])
    func shallow(stored: String, expected: String) {
        #expect(sameJSON(rendered(node(stored).shallow), expected))
    }

    @Test func shallowDropsPriorities() {
        let n = node(#"{"a":{".value":1,".priority":2},".priority":3}"#)
        #expect(n.shallow.priority == nil)
        #expect(n.shallow.child(Key("a")) == .leaf(.bool(true)))
        #expect(node(#"{".value":1,".priority":2}"#).shallow == .leaf(.int(1)))
    }

    /// Export output is a lossless encoding: random nodes (with priorities) survive export → parse → Node.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func exportRoundTrip(seed: UInt64) throws {
        var r = SplitMix64(seed: seed)
        for i in 0..<500 {
            let original = try Node(json: Gen.nodeJSON(&r))
            let back = try Node(json: JSONValue.parse(original.jsonBytes(format: .export)))
            #expect(back == original, "seed \(seed) #\(i): \(original.jsonString(format: .export))")
            #expect(back.jsonBytes(format: .export) == original.jsonBytes(format: .export))
        }
    }

    /// Plain output re-read as a write gives the same data minus priorities (arrays read back as index keys).
    @Test(arguments: [5, 6, 7] as [UInt64])
    func plainRoundTrip(seed: UInt64) throws {
        var r = SplitMix64(seed: seed)
        for i in 0..<500 {
            let original = try Node(json: Gen.nodeJSON(&r, priorities: false))
            let text = original.jsonBytes()
            let back = try Node(json: JSONValue.parse(text))
            #expect(back == original, "seed \(seed) #\(i): \(String(decoding: text, as: UTF8.self))")
            #expect(ReferenceJSON.parse(text, maxDepth: 512) != nil)
        }
    }

    @Test func arrayLengthRule() {
        #expect(node(#"{"0":1,"1":1,"2":1}"#).children.arrayLength == 3)
        #expect(node(#"{"1":1}"#).children.arrayLength == 2)
        #expect(node(#"{"5":1}"#).children.arrayLength == nil)
        #expect(node(#"{"007":1}"#).children.arrayLength == nil)
        #expect(node(#"{"a":1}"#).children.arrayLength == nil)
    }
}
