import Testing
@testable import HearthCore

/// §2.7 server values.
@Suite("Server values")
struct ServerValueTests {
    static func write(_ text: String, depth: Int = 0) throws -> ParsedWrite {
        try Node.parseWrite(parse(text), depth: depth)
    }

    /// Resolves `text` against `stored` (the value at the write location before the write).
    static func resolve(_ text: String, now: Int64 = 1_716_000_000_123, stored: Node = .empty) throws -> Node {
        try write(text).resolved(now: now) { stored.child(at: $0) }
    }

    /// An increment given as the priority adds to the stored priority, not to the stored value.
    @Test func priorityIncrementAddsToTheStoredPriority() throws {
        let stored = try Node(json: JSONValue.parse(#"{".value":100,".priority":3}"#))
        let n = try ServerValueTests.resolve(#"{".value":1,".priority":{".sv":{"increment":2}}}"#, stored: stored)
        #expect(n == .leaf(.int(1), priority: .int(5)))
        let fresh = try ServerValueTests.resolve(#"{".value":1,".priority":{".sv":{"increment":2}}}"#)
        #expect(fresh == .leaf(.int(1), priority: .int(2)))
    }

    @Test func timestampAtTheWriteLocation() throws {
        let w = try ServerValueTests.write(#"{".sv":"timestamp"}"#)
        #expect(w.node.isEmpty)
        #expect(w.placeholders == [ServerValuePlaceholder(path: .root, value: .timestamp, isPriority: false)])
        #expect(try ServerValueTests.resolve(#"{".sv":"timestamp"}"#, now: 42) == .leaf(.int(42)))
    }

    @Test func everyPlaceholderGetsTheSameTimestamp() throws {
        let n = try ServerValueTests.resolve(#"{"a":{".sv":"timestamp"},"b":{"c":{".sv":"timestamp"}},"d":[{".sv":"timestamp"}],"e":1}"#, now: 7)
        #expect(n == node(#"{"a":7,"b":{"c":7},"d":[7],"e":1}"#))
        let w = try ServerValueTests.write(#"{"a":{".sv":"timestamp"},"b":{"c":{".sv":"timestamp"}},"d":[{".sv":"timestamp"}]}"#)
        #expect(Set(w.placeholders.map(\.path)) == [Path("a"), Path("b/c"), Path("d/0")])
        #expect(w.node.isEmpty, "placeholders are not data until resolved")
    }

    @Test func timestampPriority() throws {
        let w = try ServerValueTests.write(#"{"a":1,".priority":{".sv":"timestamp"}}"#)
        #expect(w.placeholders == [ServerValuePlaceholder(path: .root, value: .timestamp, isPriority: true)])
        let n = try ServerValueTests.resolve(#"{"a":1,".priority":{".sv":"timestamp"}}"#, now: 99)
        #expect(n.priority == .int(99))
        #expect(n.child(Key("a")).leafValue == .int(1))
        let nested = try ServerValueTests.resolve(#"{"x":{".value":"v",".priority":{".sv":"timestamp"}}}"#, now: 5)
        #expect(nested.child(Key("x")) == .leaf(.string("v"), priority: .int(5)))
    }

    /// A server value given as `.value` next to a priority keeps the priority (§1.6 + §2.7).
    @Test func timestampValueWithPriority() throws {
        let n = try ServerValueTests.resolve(#"{".value":{".sv":"timestamp"},".priority":5}"#, now: 11)
        #expect(n == .leaf(.int(11), priority: .int(5)))
        let child = try ServerValueTests.resolve(#"{"a":{".value":{".sv":{"increment":2}},".priority":"p"}}"#, stored: node(#"{"a":40}"#))
        #expect(child.child(Key("a")) == .leaf(.int(42), priority: .string("p")))
    }

    /// Both the value and the priority may be server values (§1.6: "Priority values: number, string, null, or a server
    /// value"; §2.7: "A leaf (or priority) written as {".sv": ...} is replaced").
    @Test func timestampValueWithTimestampPriority() throws {
        let n = try ServerValueTests.resolve(#"{".value":{".sv":"timestamp"},".priority":{".sv":"timestamp"}}"#, now: 12)
        #expect(n == .leaf(.int(12), priority: .int(12)))
        let child = try ServerValueTests.resolve(#"{"a":{".value":{".sv":"timestamp"},".priority":{".sv":"timestamp"}}}"#, now: 13)
        #expect(child.child(Key("a")) == .leaf(.int(13), priority: .int(13)))
    }

    @Test(arguments: [
        ("5", "2", "7"),  // §9.12
        ("null", "2", "2"),  // missing → delta
        (#""str""#, "2", "2"),  // non-numeric → delta
        ("true", "3", "3"),
        (#"{"x":1}"#, "3", "3"),
        ("1", "1.5", "2.5"),  // §9.12 update with 1.5
        ("2.5", "0.5", "3"),
        ("1.5", "1", "2.5"),
        ("10", "-15", "-5"),
        ("0.1", "0.2", "0.30000000000000004"),
        ("9007199254740992", "1", "9007199254740993"),  // Int64 arithmetic while it fits
        ("5", "2.0", "7"),
    ])
    func increment(stored: String, delta: String, expected: String) throws {
        let n = try ServerValueTests.resolve(#"{"n":{".sv":{"increment":\#(delta)}}}"#, stored: node(#"{"n":\#(stored)}"#))
        #expect(n.child(Key("n")) == node(expected))
        #expect(n.child(Key("n")).jsonString() == expected)
    }

    @Test func incrementOverflowsToDouble() {
        #expect(ServerValue.add(.int(.max), .int(1)) == .double(9.223372036854775808e18))
        #expect(ServerValue.add(.int(.min), .int(-1)) == .double(-9.223372036854775808e18))
        #expect(ServerValue.add(.int(.max), .int(0)) == .int(.max))
        #expect(ServerValue.add(.int(.max - 1), .int(1)) == .int(.max))
        #expect(ServerValue.add(.int(.max), .double(0.5)) == .double(9.223372036854775808e18), "rounds to 2^63, stays a double")
    }

    @Test func addTable() {
        #expect(ServerValue.add(nil, .int(3)) == .int(3))
        #expect(ServerValue.add(.string("9"), .int(3)) == .int(3))
        #expect(ServerValue.add(.bool(true), .double(0.5)) == .double(0.5))
        #expect(ServerValue.add(.double(0.5), .double(0.5)) == .int(1))
        #expect(ServerValue.add(.int(2), .double(-0.5)) == .double(1.5))
    }

    @Test func incrementReadsTheCurrentValueAtEachPlaceholder() throws {
        let w = try ServerValueTests.write(#"{"a":{".sv":{"increment":1}},"b":{"c":{".sv":{"increment":10}}}}"#)
        var asked: [Path] = []
        let n = try w.resolved(now: 0) { p in
            asked.append(p)
            return p == Path("a") ? .leaf(.int(1)) : .leaf(.int(100))
        }
        #expect(Set(asked) == [Path("a"), Path("b/c")])
        #expect(n == node(#"{"a":2,"b":{"c":110}}"#))
    }

    @Test func incrementPlaceholderValue() throws {
        #expect(try ServerValueTests.write(#"{".sv":{"increment":2}}"#).placeholders.map(\.value) == [.increment(.int(2))])
        #expect(try ServerValueTests.write(#"{".sv":{"increment":1.5}}"#).placeholders.map(\.value) == [.increment(.double(1.5))])
        #expect(try ServerValueTests.write(#"{".sv":{"increment":3.0}}"#).placeholders.map(\.value) == [.increment(.int(3))])
    }

    @Test func resolutionErrorsPropagate() throws {
        struct Boom: Error {}
        let w = try ServerValueTests.write(#"{".sv":{"increment":1}}"#)
        #expect(throws: Boom.self) { try w.resolved(now: 0) { _ in throw Boom() } }
        let ts = try ServerValueTests.write(#"{".sv":"timestamp"}"#)
        #expect(try ts.resolved(now: 3) { _ in throw Boom() } == .leaf(.int(3)), "timestamps never read current data")
    }

    @Test(arguments: [
        (#"{".sv":"foo"}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":"TIMESTAMP"}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":5}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":null}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":{}}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":{"inc":1}}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":{"increment":1,"x":2}}"#, "Invalid data; unrecognized server value"),
        (#"{".sv":{"increment":"1"}}"#, "Invalid data; increment requires a number"),
        (#"{".sv":{"increment":null}}"#, "Invalid data; increment requires a number"),
        (#"{".sv":{"increment":true}}"#, "Invalid data; increment requires a number"),
        (#"{".sv":"timestamp","a":1}"#, "Invalid data; .sv must be the only key"),
        (#"{"a":1,".sv":"timestamp"}"#, "Invalid data; .sv must be the only key"),
        (#"{"a":{".priority":{".sv":"nope"}}}"#, "Invalid data; unrecognized server value"),
    ])
    func invalidServerValues(text: String, message: String) throws {
        let json = try parse(text)
        #expect(throws: ValidationError(message)) { try Node.parseWrite(json) }
    }

    @Test func storedDataMayNotContainServerValues() throws {
        let json = try parse(#"{"a":{".sv":"timestamp"}}"#)
        #expect(throws: ValidationError("Unexpected server value")) { try Node(json: json) }
        #expect(try Node.parseWrite(json).placeholders.count == 1)
    }

    @Test func serverValueDepthCounts() throws {
        #expect(try Node.parseWrite(parse(#"{"a":{".sv":"timestamp"}}"#), depth: 31).placeholders.count == 1)
        #expect(throws: ValidationError.self) { try Node.parseWrite(parse(#"{"a":{"b":{".sv":"timestamp"}}}"#), depth: 31) }
    }
}
