import Testing
@testable import HearthCore

/// §1.1 normalisation, §1.6 priorities on write, §1.2 depth, Leaf numbers.
@Suite("Node")
struct NodeTests {
    @Test(arguments: ["null", "{}", "[]", #"{"a":{}}"#, #"{"a":{"b":{}},"c":[]}"#, "[null,null]", #"{"a":null}"#,
                      #"[[],{},[null]]"#, #"{".priority":5}"#, #"{".value":null,".priority":1}"#, #"{"a":{},".priority":"x"}"#])
    func emptyValues(text: String) {
        let n = node(text)
        #expect(n.isEmpty)
        #expect(n == .empty)
        #expect(n.priority == nil, "an empty node never holds a priority")
        #expect(n.jsonString() == "null")
    }

    @Test func leaves() {
        #expect(node("\"foo\"").leafValue == .string("foo"))
        #expect(node("\"\"").leafValue == .string(""), "empty string is a real value")
        #expect(node("0").leafValue == .int(0))
        #expect(node("1.2").leafValue == .double(1.2))
        #expect(node("true").leafValue == .bool(true))
        #expect(node("false").leafValue == .bool(false))
        #expect(node("1.0").leafValue == .int(1), "1.0 is stored as the integer 1")
        #expect(node("1e3").leafValue == .int(1000))
        #expect(node("1.0").jsonString() == "1")
    }

    @Test func arraysAreObjectsWithIndexKeysAndNullsDropped() {
        let n = node("[1,null,3]")
        #expect(n.children.keys.map(\.string) == ["0", "2"])
        #expect(n.child(Key("0")).leafValue == .int(1))
        #expect(n.child(Key("1")).isEmpty)
        #expect(n.child(Key("2")).leafValue == .int(3))
        #expect(node("[1,2,3]") == node(#"{"0":1,"1":2,"2":3}"#))
    }

    @Test func childrenAreSortedByKeyOrder() {
        let n = node(#"{"b":1,"a":2,"10":3,"2":4,"-":5,"007":6}"#)
        #expect(n.children.keys.map(\.string) == ["2", "007", "10", "-", "a", "b"])
        #expect(n.childCount == 6)
        #expect(node(#"{"b":1,"a":2}"#) == node(#"{"a":2,"b":1}"#), "member order does not matter")
    }

    @Test func duplicateMembersLastWins() {
        #expect(node(#"{"a":1,"a":2}"#) == node(#"{"a":2}"#))
        #expect(node(#"{"a":1,"a":null}"#).isEmpty)
    }

    /// Keys are compared by UTF-16 code units: "é" (U+00E9) and "e"+U+0301 are two different children.
    @Test func canonicallyEquivalentKeysAreTwoChildren() {
        let n = node("{\"\u{E9}\":1,\"e\u{301}\":2}")
        #expect(n.childCount == 2)
        #expect(n.children.keys.map { Array($0.string.unicodeScalars) } == [["e", "\u{301}"], ["\u{E9}"]])
    }

    @Test func childAtPath() {
        let n = node(#"{"a":{"b":{"c":5}},"x":7}"#)
        #expect(n.child(at: Path("a/b/c")).leafValue == .int(5))
        #expect(n.child(at: Path("a/b")) == node(#"{"c":5}"#))
        #expect(n.child(at: .root) == n)
        #expect(n.child(at: Path("a/zz")).isEmpty)
        #expect(n.child(at: Path("x/y")).isEmpty, "reading through a leaf yields null")
        #expect(Node.leaf(.int(1)).child(Key("a")).isEmpty)
    }

    @Test func settingNormalises() {
        let n = node(#"{"a":{"b":1}}"#)
        #expect(n.setting(Path("a/b"), to: .empty).isEmpty, "deleting the last child removes ancestors")
        #expect(n.setting(Path("a/c"), to: .leaf(.int(2))) == node(#"{"a":{"b":1,"c":2}}"#))
        #expect(n.setting(.root, to: .leaf(.string("x"))) == .leaf(.string("x")))
        #expect(Node.empty.setting(Path("p/q"), to: .leaf(.bool(true))) == node(#"{"p":{"q":true}}"#))
        #expect(Node.empty.setting(Path("p/q"), to: .empty).isEmpty)
        let two = node(#"{"a":{"b":1},"c":2}"#)
        #expect(two.setting(Path("a/b"), to: .empty) == node(#"{"c":2}"#))
    }

    @Test func writingUnderALeafDiscardsThePrimitiveAndKeepsItsPriority() {
        let leaf = Node.leaf(.int(5), priority: .string("p"))
        let n = leaf.setting(Path("k"), to: .leaf(.int(1)))
        #expect(n.children.keys.map(\.string) == ["k"])
        #expect(n.leafValue == nil)
        #expect(n.priority == .string("p"))
    }

    /// Firebase's leaf ignores the removal of a child it does not have; the server keeps `k: 4` for `k/score = null`,
    /// so a client applying the same change must too (the differential soak's seed 78 diverged here).
    @Test func removingUnderALeafOrAnAbsentChildChangesNothing() {
        let n = node(#"{"k":4,"j":{"a":1}}"#)
        #expect(n.setting(Path("k/score"), to: .empty) == n)
        #expect(n.setting(Path("k/score/deep"), to: .empty) == n)
        #expect(n.setting(Path("j/b"), to: .empty) == n)
        #expect(n.setting(Path("x/y"), to: .empty) == n)
        let leaf = Node.leaf(.int(5), priority: .string("p"))
        #expect(leaf.setting(Path("k"), to: .empty) == leaf)
        #expect(n.setting(Path("k"), to: .empty) == node(#"{"j":{"a":1}}"#), "removing the leaf itself still works")
    }

    @Test func priorities() throws {
        let leaf = node(#"{".value":5,".priority":1}"#)
        #expect(leaf.leafValue == .int(5))
        #expect(leaf.priority == .int(1))
        let obj = node(#"{"a":1,".priority":"x"}"#)
        #expect(obj.priority == .string("x"))
        #expect(obj.child(Key("a")).leafValue == .int(1))
        #expect(node(#"{"a":1,".priority":2.5}"#).priority == .double(2.5))
        #expect(node(#"{"a":1,".priority":2.0}"#).priority == .int(2))
        #expect(node(#"{"a":1,".priority":null}"#).priority == nil)
        #expect(node(#"{".value":{"a":1},".priority":3}"#) == node(#"{"a":1,".priority":3}"#))
        #expect(node(#"{".value":[1],".priority":3}"#).priority == .int(3))
        #expect(node(#"{".value":"v"}"#) == .leaf(.string("v")))
        #expect(Node.empty.withPriority(.int(1)).priority == nil)
        #expect(Node.leaf(.int(1)).withPriority(.int(2)).priority == .int(2))
        #expect(Node.leaf(.int(1), priority: .int(2)) != Node.leaf(.int(1)), "priority is part of the value")
    }

    @Test(arguments: [
        #"{".value":1,"a":2}"#, #"{"a":2,".value":1}"#, #"{".priority":true,"a":1}"#, #"{".priority":{"x":1},"a":1}"#,
        #"{".priority":[1],"a":1}"#, #"{"a.b":1}"#, #"{"a":{"$b":1}}"#, ##"{"#":1}"##, #"{"":1}"#, #"{".foo":1}"#,
        #"{"a/b":1}"#, #"[{"x[":1}]"#, #"{"a":{".sv":"timestamp"}}"#, "{\"\u{7F}\":1}",
    ])
    func invalidData(text: String) throws {
        let json = try parse(text)
        #expect(throws: ValidationError.self) { try Node(json: json) }
    }

    @Test func depthLimitOf32CountsTheWriteLocation() throws {
        func nested(_ levels: Int) -> JSONValue {
            (0..<levels).reduce(JSONValue.int(1)) { inner, _ in .object([JSONMember("k", inner)]) }
        }
        #expect(try Node(json: nested(32)).child(at: Path(Array(repeating: Key("k"), count: 32))).leafValue == .int(1))
        #expect(throws: ValidationError.self) { try Node(json: nested(33)) }
        #expect(try Node.parseWrite(nested(2), depth: 30).node.isEmpty == false)
        #expect(throws: ValidationError.self) { try Node.parseWrite(nested(2), depth: 31) }
        #expect(throws: ValidationError.self) { try Node.parseWrite(.int(1), depth: 33) }
        // Arrays nest too.
        let arrays = (0..<33).reduce(JSONValue.int(1)) { inner, _ in .array([inner]) }
        #expect(throws: ValidationError.self) { try Node(json: arrays) }
    }

    @Test func leafNumberNormalisation() {
        #expect(Leaf.number(2.0) == .int(2))
        #expect(Leaf.number(-0.0) == .int(0))
        #expect(Leaf.number(2.5) == .double(2.5))
        #expect(Leaf.number(9007199254740991) == .int(9007199254740991))
        #expect(Leaf.number(9007199254740992) == .double(9007199254740992))
        #expect(Leaf.number(-9007199254740992) == .double(-9007199254740992))
        #expect(Leaf(json: .double(3.0)) == .int(3))
        #expect(Leaf(json: .int(3)) == .int(3))
        #expect(Leaf(json: .null) == nil)
        #expect(Leaf(json: .array([])) == nil)
        #expect(Leaf.int(3).isNumber && Leaf.double(0.5).isNumber && !Leaf.string("3").isNumber && !Leaf.bool(true).isNumber)
        #expect(Leaf.string("a").json == .string("a"))
        #expect(Leaf.double(0.5).json == .double(0.5))
    }

    /// §1.5 / §3.3 primitive order: false < true < numbers < strings; numbers by value regardless of representation.
    @Test(arguments: [
        (Leaf.bool(false), Leaf.bool(true)), (.bool(true), .int(-1_000_000)), (.bool(true), .double(-1e300)),
        (.int(1), .double(1.5)), (.double(1.5), .int(2)), (.int(-3), .int(2)), (.int(.max), .string("")),
        (.double(1e300), .string("0")), (.string("A"), .string("a")), (.string("😀"), .string("\u{FF5E}")),
        (.string("a"), .string("ab")), (.int(9007199254740993), .double(1e19)),
    ])
    func leafOrder(a: Leaf, b: Leaf) {
        #expect(Leaf.compare(a, b) < 0)
        #expect(Leaf.compare(b, a) > 0)
    }

    /// §1.1: "semantics are IEEE-754 double for ordering" — integers above 2^53 that are the same double compare
    /// equal (ties then go to the key), and the order stays transitive across int/double representations.
    @Test func numbersCompareAsDoubles() {
        let a = Leaf.int(9_007_199_254_740_993)  // 2^53 + 1, the same double as 2^53
        let b = Leaf.double(9_007_199_254_740_992)
        let c = Leaf.int(9_007_199_254_740_992)
        #expect(Leaf.compare(a, b) == 0)
        #expect(Leaf.compare(b, c) == 0)
        #expect(Leaf.compare(a, c) == 0, "a = b and b = c must give a = c")
        #expect(Leaf.compare(.int(.max), .int(.max - 1)) == 0, "both are 2^63 as doubles")
    }

    @Test func leafEquality() {
        #expect(Leaf.compare(.int(2), .double(2.0)) == 0, "2 = 2.0")
        #expect(Leaf.compare(.bool(true), .bool(true)) == 0)
        #expect(Leaf.compare(.string("x"), .string("x")) == 0)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func childrenStaySortedUnderRandomEdits(seed: UInt64) {
        var r = SplitMix64(seed: seed)
        var c = Children()
        var model: [String: Int64] = [:]
        for _ in 0..<2000 {
            let k = Gen.key(&r)
            if r.chance(25) {
                c[Key(k)] = nil
                model[k] = nil
            } else if r.chance(10) {
                c[Key(k)] = .empty  // empty children are never stored
                model[k] = nil
            } else {
                let v = Int64(r.below(100))
                c[Key(k)] = .leaf(.int(v))
                model[k] = v
            }
        }
        #expect(c.count == model.count)
        #expect(zip(c.keys, c.keys.dropFirst()).allSatisfy { Key.compare($0, $1) < 0 })
        for (k, v) in model { #expect(c[Key(k)]?.leafValue == .int(v)) }
        var appended = Children()
        for (k, n) in c { appended.appendSorted(k, n) }
        #expect(appended == c)
        // appendSorted tolerates out-of-order input by falling back to insertion.
        var reversed = Children()
        for (k, n) in zip(c.keys.reversed(), c.nodes.reversed()) { reversed.appendSorted(k, n) }
        #expect(reversed == c)
    }
}
