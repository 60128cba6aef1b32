import Testing
@testable import HearthCore

/// §3: query parsing and evaluation.
@Suite("Queries")
struct QueryTests {
    static let dinosaurs = node(#"""
        {"bruhathkayosaurus":{"height":25,"length":44,"ratings":{"pos":2}},
         "lambeosaurus":{"height":2.1,"length":12.5,"ratings":{"pos":3}},
         "linhenykus":{"height":0.6,"length":1,"ratings":{"pos":1}},
         "pterodactyl":{"height":0.6,"length":0.8,"ratings":{"pos":4}},
         "stegosaurus":{"height":4,"length":9,"ratings":{"pos":6}},
         "triceratops":{"height":3,"length":8,"ratings":{"pos":5}}}
        """#)
    static let scores = node(#"""
        {"bruhathkayosaurus":55,"lambeosaurus":21,"linhenykus":80,"pterodactyl":93,"stegosaurus":5,"triceratops":22}
        """#)
    static let byHeight = ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops", "stegosaurus", "bruhathkayosaurus"]
    static let byKey = byHeight.sorted()
    static let byPos = ["linhenykus", "bruhathkayosaurus", "lambeosaurus", "pterodactyl", "triceratops", "stegosaurus"]
    static let byScore = ["stegosaurus", "lambeosaurus", "triceratops", "bruhathkayosaurus", "linhenykus", "pterodactyl"]

    static func query(_ params: [String: String]) throws -> Query {
        try #require(try Query(parameters: params))
    }

    static func keys(_ params: [String: String], on data: Node) -> [String] {
        do {
            return try query(params).select(from: data).map(\.0.string)
        } catch {
            return ["<\(error)>"]
        }
    }

    /// The §3.2 worked example and the admin SDK's integration expectations, in query order.
    @Test(arguments: [
        (["orderBy": #""height""#], byHeight),
        (["orderBy": #""height""#, "startAt": "3.5"], ["stegosaurus", "bruhathkayosaurus"]),
        (["orderBy": #""height""#, "endAt": "3.5"], Array(byHeight.prefix(4))),
        (["orderBy": #""height""#, "startAt": "2.5", "endAt": "5"], ["triceratops", "stegosaurus"]),
        (["orderBy": #""height""#, "equalTo": "0.6"], ["linhenykus", "pterodactyl"]),
        (["orderBy": #""height""#, "limitToFirst": "3"], ["linhenykus", "pterodactyl", "lambeosaurus"]),
        (["orderBy": #""height""#, "limitToLast": "2"], ["stegosaurus", "bruhathkayosaurus"]),
        (["orderBy": #""height""#, "startAt": "1", "limitToFirst": "2"], ["lambeosaurus", "triceratops"]),
        (["orderBy": #""height""#, "endAt": "3.5", "limitToLast": "2"], ["lambeosaurus", "triceratops"]),
        (["orderBy": #""height""#, "startAt": "0.6", "endAt": "0.6"], ["linhenykus", "pterodactyl"]),
        (["orderBy": #""height""#, "startAfter": "0.6"], Array(byHeight.dropFirst(2))),
        (["orderBy": #""height""#, "endBefore": "3"], ["linhenykus", "pterodactyl", "lambeosaurus"]),
        (["orderBy": #""height""#, "startAt": #"0.6,"pterodactyl""#], Array(byHeight.dropFirst(1))),
        (["orderBy": #""height""#, "startAfter": #"0.6,"linhenykus""#], Array(byHeight.dropFirst(1))),
        (["orderBy": #""height""#, "endAt": #"0.6,"linhenykus""#], ["linhenykus"]),
        (["orderBy": #""height""#, "endBefore": #"0.6,"pterodactyl""#], ["linhenykus"]),
        (["orderBy": #""height""#, "equalTo": #"0.6,"pterodactyl""#], ["pterodactyl"]),
        (["orderBy": #""height""#, "startAt": #""a""#], []),  // strings sort after every number
        (["orderBy": #""height""#, "endAt": "true"], []),
        (["orderBy": #""height""#, "limitToFirst": "0"], []),
        (["orderBy": #""height""#, "limitToLast": "100"], byHeight),
        (["orderBy": #""$key""#], byKey),
        (["orderBy": #""$key""#, "startAt": #""p""#], ["pterodactyl", "stegosaurus", "triceratops"]),
        (["orderBy": #""$key""#, "endAt": #""m""#], ["bruhathkayosaurus", "lambeosaurus", "linhenykus"]),
        (["orderBy": #""$key""#, "equalTo": #""stegosaurus""#], ["stegosaurus"]),
        (["orderBy": #""$key""#, "limitToLast": "2"], ["stegosaurus", "triceratops"]),
        (["orderBy": #""$key""#, "startAfter": #""pterodactyl""#], ["stegosaurus", "triceratops"]),
        (["orderBy": #""$key""#, "endBefore": #""lambeosaurus""#], ["bruhathkayosaurus"]),
        (["orderBy": #""ratings/pos""#], byPos),
        (["orderBy": #""ratings/pos""#, "startAt": "4"], ["pterodactyl", "triceratops", "stegosaurus"]),
        (["orderBy": #""ratings/pos""#, "limitToFirst": "2"], ["linhenykus", "bruhathkayosaurus"]),
        (["orderBy": #""/ratings//pos/""#], byPos),
        (["orderBy": #""missing""#], byKey),  // all null: ties broken by key
        (["orderBy": #""ratings""#], byKey),  // all objects: ties broken by key
        (["orderBy": #""$priority""#], byKey),
        (["orderBy": #""$value""#], byKey),
    ])
    func dinosaurs(params: [String: String], expected: [String]) {
        #expect(QueryTests.keys(params, on: QueryTests.dinosaurs) == expected)
    }

    @Test(arguments: [
        (["orderBy": #""$value""#], byScore),
        (["orderBy": #""$value""#, "limitToFirst": "3"], Array(byScore.prefix(3))),
        (["orderBy": #""$value""#, "limitToLast": "2"], Array(byScore.suffix(2))),
        (["orderBy": #""$value""#, "startAt": "50"], ["bruhathkayosaurus", "linhenykus", "pterodactyl"]),
        (["orderBy": #""$value""#, "endAt": "21"], ["stegosaurus", "lambeosaurus"]),
        (["orderBy": #""$value""#, "startAt": "20", "endAt": "60"], ["lambeosaurus", "triceratops", "bruhathkayosaurus"]),
        (["orderBy": #""$value""#, "equalTo": "22"], ["triceratops"]),
        (["orderBy": #""$value""#, "equalTo": "22.0"], ["triceratops"]),
    ])
    func scores(params: [String: String], expected: [String]) {
        #expect(QueryTests.keys(params, on: QueryTests.scores) == expected)
    }

    /// `apply` returns the kept children as a node (rendered as an object whose order is not meaningful).
    @Test func applyKeepsChildValues() throws {
        let q = try QueryTests.query(["orderBy": #""height""#, "startAt": "2.5", "endAt": "5"])
        #expect(q.apply(to: QueryTests.dinosaurs) == node(#"""
            {"stegosaurus":{"height":4,"length":9,"ratings":{"pos":6}},"triceratops":{"height":3,"length":8,"ratings":{"pos":5}}}
            """#))
        let none = try QueryTests.query(["orderBy": #""height""#, "limitToFirst": "0"])
        #expect(none.apply(to: QueryTests.dinosaurs).isEmpty, "limit 0 → null")
    }

    @Test func leavesAndEmptyNodes() throws {
        let leaf = Node.leaf(.int(5))
        #expect(try QueryTests.query(["orderBy": #""$key""#]).apply(to: leaf) == leaf, "only orderBy: the leaf itself")
        #expect(try QueryTests.query(["orderBy": #""$key""#, "limitToFirst": "1"]).apply(to: leaf).isEmpty)
        #expect(try QueryTests.query(["orderBy": #""$value""#, "startAt": "1"]).apply(to: leaf).isEmpty)
        #expect(try QueryTests.query(["orderBy": #""$key""#]).apply(to: .empty).isEmpty)
        #expect(try QueryTests.query(["orderBy": #""$key""#]).select(from: leaf).isEmpty)
    }

    /// §9.16 cross-type value order.
    static let mixed = node(#"{"a":true,"b":0,"c":"foo","d":false,"e":{"x":1},"f":"bar"}"#)

    @Test(arguments: [
        (["orderBy": #""$value""#], ["d", "a", "b", "f", "c", "e"]),
        (["orderBy": #""$value""#, "limitToFirst": "2"], ["d", "a"]),
        (["orderBy": #""$value""#, "limitToLast": "1"], ["e"]),
        (["orderBy": #""$value""#, "startAt": #""bar""#], ["f", "c", "e"]),
        (["orderBy": #""$value""#, "startAt": "false", "endAt": "true"], ["d", "a"]),
        (["orderBy": #""$value""#, "equalTo": "true"], ["a"]),
        (["orderBy": #""$value""#, "startAt": "null", "endAt": "null"], []),
        (["orderBy": #""$value""#, "startAt": "-1", "endAt": "1"], ["b"]),
        (["orderBy": #""$value""#, "endBefore": "0"], ["d", "a"]),
        (["orderBy": #""$value""#, "startAfter": #""foo""#], ["e"]),
    ])
    func crossTypeValueOrder(params: [String: String], expected: [String]) {
        #expect(QueryTests.keys(params, on: QueryTests.mixed) == expected)
    }

    /// §1.5 with a child index: missing (null) first, then false, true, numbers, strings, objects.
    @Test func crossTypeChildOrder() {
        let data = node(#"""
            {"n":{"x":1},"o":{"v":{"deep":1}},"s":{"v":"str"},"t":{"v":true},"f":{"v":false},"one":{"v":1},"half":{"v":0.5},
             "leaf":7,"a":{"v":"A"}}
            """#)
        #expect(QueryTests.keys(["orderBy": #""v""#], on: data) == ["leaf", "n", "f", "t", "half", "one", "a", "s", "o"])
        #expect(QueryTests.keys(["orderBy": #""v""#, "startAt": "0.5"], on: data) == ["half", "one", "a", "s", "o"])
        #expect(QueryTests.keys(["orderBy": #""v""#, "endAt": "null"], on: data) == ["leaf", "n"])
        #expect(QueryTests.keys(["orderBy": #""v/deep""#, "startAt": "1"], on: data) == ["o"])
    }

    /// §9.17 integer-like keys, ordered by the server before limiting; §9.18 key bounds.
    @Test func integerLikeKeyOrder() {
        let data = node(#"{"1":1,"2":1,"10":1,"-1":1,"007":1,"a":1,"b":1}"#)
        #expect(QueryTests.keys(["orderBy": #""$key""#], on: data) == ["-1", "1", "2", "007", "10", "a", "b"])
        #expect(QueryTests.keys(["orderBy": #""$key""#, "limitToFirst": "3"], on: data) == ["-1", "1", "2"])
        #expect(QueryTests.keys(["orderBy": #""$key""#, "limitToLast": "3"], on: data) == ["10", "a", "b"])
        #expect(QueryTests.keys(["orderBy": #""$key""#, "startAt": #""2""#], on: data) == ["2", "007", "10", "a", "b"])
        #expect(QueryTests.keys(["orderBy": #""$key""#, "endAt": #""7""#], on: data) == ["-1", "1", "2"], "\"7\" sorts before \"007\"")
        #expect(QueryTests.keys(["orderBy": #""$key""#, "startAt": #""-""#], on: data) == ["a", "b"])
        // Ties on value are broken by integer-aware key order too.
        #expect(QueryTests.keys(["orderBy": #""$value""#, "limitToFirst": "4"], on: data) == ["-1", "1", "2", "007"])
    }

    @Test(arguments: [
        (["orderBy": #""$key""#, "startAt": #""b""#], ["b", "c"]),
        (["orderBy": #""$key""#, "endAt": #""b""#], ["a", "b"]),
        (["orderBy": #""$key""#, "equalTo": #""b""#], ["b"]),
        (["orderBy": #""$key""#, "startAfter": #""b""#], ["c"]),
        (["orderBy": #""$key""#, "endBefore": #""b""#], ["a"]),
        (["orderBy": #""$key""#, "startAt": #""bb""#], ["c"]),
        (["orderBy": #""$key""#, "equalTo": #""zz""#], []),
    ])
    func keyBounds(params: [String: String], expected: [String]) {
        #expect(QueryTests.keys(params, on: node(#"{"a":1,"b":2,"c":3}"#)) == expected)
    }

    /// §1.1/§3.3: numbers order as IEEE doubles, so 2^53+1 and 2^53 tie and the key decides.
    @Test func largeIntegersTieAsDoubles() {
        let data = node(#"{"a":9007199254740993,"b":9007199254740992,"c":1}"#)
        #expect(QueryTests.keys(["orderBy": #""$value""#], on: data) == ["c", "a", "b"])
        #expect(QueryTests.keys(["orderBy": #""$value""#, "equalTo": "9007199254740992"], on: data) == ["a", "b"])
    }

    @Test func priorityOrder() {
        let data = node(#"""
            {"a":{".value":1,".priority":"x"},"b":{".value":1,".priority":2},"c":1,"d":{".value":1,".priority":1.5},
             "e":{"k":1,".priority":"a"},"f":{".value":1,".priority":2}}
            """#)
        #expect(QueryTests.keys(["orderBy": #""$priority""#], on: data) == ["c", "d", "b", "f", "e", "a"])
        #expect(QueryTests.keys(["orderBy": #""$priority""#, "startAt": "2"], on: data) == ["b", "f", "e", "a"])
        #expect(QueryTests.keys(["orderBy": #""$priority""#, "startAt": #"2,"c""#], on: data) == ["f", "e", "a"])
        #expect(QueryTests.keys(["orderBy": #""$priority""#, "startAt": #""a""#, "endAt": #""a""#], on: data) == ["e"])
    }

    /// `$key` bounds built directly (not via REST) compare a number's decimal text by key order.
    @Test func keyOrderWithNumericBoundValue() {
        let data = node(#"{"1":1,"2":1,"10":1,"x":1}"#)
        let q = Query(order: .key, start: .init(value: .int(2)))
        #expect(q.select(from: data).map(\.0.string) == ["2", "10", "x"])
        let e = Query(order: .key, end: .init(value: .int(2), strict: true))
        #expect(e.select(from: data).map(\.0.string) == ["1"])
    }

    @Test func parsedStructure() throws {
        let q = try #require(try Query(parameters: ["orderBy": #""a/b""#, "startAt": #"5,"k""#, "endBefore": #""z""#, "limitToLast": "3"]))
        #expect(q.order == .child(Path("a/b")))
        #expect(q.start == Query.Bound(value: .int(5), key: Key("k"), strict: false))
        #expect(q.end == Query.Bound(value: .string("z"), key: nil, strict: true))
        #expect(q.limit == .last(3))
        #expect(!q.isUnfiltered)
        let eq = try #require(try Query(parameters: ["orderBy": #""$value""#, "equalTo": "null"]))
        #expect(eq.start == Query.Bound(value: nil) && eq.end == Query.Bound(value: nil))
        let plain = try #require(try Query(parameters: ["orderBy": #""$priority""#]))
        #expect(plain.order == .priority && plain.isUnfiltered)
        #expect(try Query(parameters: ["orderBy": #""$key""#, "startAt": #""a,b""#])?.start?.value == .string("a,b"))
        #expect(try Query(parameters: ["orderBy": #""v""#, "startAt": #""a,b","c,d""#])?.start == .init(value: .string("a,b"), key: Key("c,d")))
        #expect(try Query(parameters: ["orderBy": #""v""#, "startAt": "1.0"])?.start?.value == .int(1))
        #expect(try Query(parameters: ["orderBy": #""v""#, "startAt": "true"])?.start?.value == .bool(true))
    }

    @Test func noQueryParametersMeansNoQuery() throws {
        #expect(try Query(parameters: [:]) == nil)
        #expect(try Query(parameters: ["shallow": "true", "print": "pretty", "ns": "x"]) == nil)
    }

    /// §3.5 messages, verbatim.
    @Test(arguments: [
        (["limitToFirst": "1"], "orderBy must be defined when other query parameters are defined"),
        (["startAt": "1", "shallow": "true"], "orderBy must be defined when other query parameters are defined"),
        (["orderBy": "height"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "$key"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "5"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""a.b""#], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""/""#], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""$other""#], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""height""#, "equalTo": "abc"], "Constraint index field must be a JSON primitive"),
        (["orderBy": #""height""#, "startAt": "[1]"], "Constraint index field must be a JSON primitive"),
        (["orderBy": #""height""#, "endAt": #"{"a":1}"#], "Constraint index field must be a JSON primitive"),
        (["orderBy": #""height""#, "startAfter": ""], "Constraint index field must be a JSON primitive"),
        (["orderBy": #""height""#, "endBefore": "'x'"], "Constraint index field must be a JSON primitive"),
        (["orderBy": #""height""#, "startAt": "1,k"], "Constraint index field must be a JSON primitive"),
    ])
    func errorMessages(params: [String: String], message: String) {
        #expect(throws: QueryError(message)) { try Query(parameters: params) }
    }

    @Test(arguments: [
        ["orderBy": #""h""#, "limitToFirst": "1", "limitToLast": "1"],
        ["orderBy": #""h""#, "limitToFirst": "-1"],
        ["orderBy": #""h""#, "limitToLast": "1.5"],
        ["orderBy": #""h""#, "limitToFirst": "abc"],
        ["orderBy": #""h""#, "limitToFirst": ""],
        ["orderBy": #""h""#, "startAt": "1", "startAfter": "2"],
        ["orderBy": #""h""#, "endAt": "1", "endBefore": "2"],
        ["orderBy": #""h""#, "equalTo": "1", "startAt": "1"],
        ["orderBy": #""$key""#, "startAt": "1"],
        ["orderBy": #""$key""#, "equalTo": "null"],
        ["orderBy": #""h""#, "startAt": #"1,"a/b""#],
    ])
    func otherErrors(params: [String: String]) {
        #expect(throws: QueryError.self) { try Query(parameters: params) }
    }

    @Test func limitErrorsNameTheParameter() {
        #expect(throws: QueryError("limitToFirst must be a non-negative integer")) {
            try Query(parameters: ["orderBy": #""h""#, "limitToFirst": "-1"])
        }
        #expect(throws: QueryError("limitToLast must be a non-negative integer")) {
            try Query(parameters: ["orderBy": #""h""#, "limitToLast": "x"])
        }
    }

    @Test func indexValueOrder() {
        let order: [IndexValue] = [.null, .leaf(.bool(false)), .leaf(.bool(true)), .leaf(.int(-1)), .leaf(.double(0.5)),
                                   .leaf(.string("")), .leaf(.string("a")), .object]
        for (i, a) in order.enumerated() {
            for (j, b) in order.enumerated() {
                #expect(IndexValue.compare(a, b).signum() == (i < j ? -1 : i > j ? 1 : 0), "\(a) vs \(b)")
            }
        }
        #expect(IndexValue(node(#"{"a":1}"#)) == .object)
        #expect(IndexValue(Node.empty) == .null)
        #expect(IndexValue(nil as Leaf?) == .null)
    }

    /// Random data and random bounds: the result equals a brute-force filter over the fully sorted children.
    @Test(arguments: [10, 20, 30] as [UInt64])
    func randomQueriesMatchBruteForce(seed: UInt64) {
        var r = SplitMix64(seed: seed)
        let values: [JSONValue] = [.null, .bool(false), .bool(true), .int(0), .int(1), .int(2), .double(1.5), .string("a"),
                                   .string("b"), .object([JSONMember("z", .int(1))])]
        for _ in 0..<300 {
            var members: [JSONMember] = []
            var seen: Set<String> = []
            for _ in 0..<r.below(12) {
                let k = r.pick(["a", "b", "c", "1", "2", "10", "007", "-1", "-x", "z"])
                guard seen.insert(k).inserted else { continue }
                members.append(JSONMember(k, .object([JSONMember("v", r.pick(values)), JSONMember("w", .int(1))])))
            }
            let data = try! Node(json: .object(members))
            let boundValues: [Leaf?] = [nil, .bool(false), .bool(true), .int(1), .double(1.5), .string("a"), .string("b")]
            let start = r.chance(50) ? Query.Bound(value: r.pick(boundValues), key: r.chance(30) ? Key(r.pick(["a", "1", "c"])) : nil, strict: r.chance(40)) : nil
            let end = r.chance(50) ? Query.Bound(value: r.pick(boundValues), key: r.chance(30) ? Key(r.pick(["b", "2", "z"])) : nil, strict: r.chance(40)) : nil
            let limit: Query.Limit? = r.chance(30) ? .first(r.below(5)) : r.chance(30) ? .last(r.below(5)) : nil
            let q = Query(order: .child(Path("v")), start: start, end: end, limit: limit)

            // Brute force: sort all by (value, key), keep those within [start, end] using tuple comparison.
            func cmp(_ a: (IndexValue, Key), _ b: (IndexValue, Key?), missingKey: Int) -> Int {
                let c = IndexValue.compare(a.0, b.0)
                if c != 0 { return c }
                guard let bk = b.1 else { return -missingKey }  // missingKey: -1 = MIN name, +1 = MAX name
                return Key.compare(a.1, bk)
            }
            var rows = data.children.map { (IndexValue($0.1.child(Key("v"))), $0.0) }
            rows.sort { cmp($0, ($1.0, $1.1), missingKey: 0) < 0 }
            rows = rows.filter { row in
                if let s = start {
                    let c = cmp(row, (IndexValue(s.value), s.key), missingKey: s.strict ? 1 : -1)
                    if s.strict ? c <= 0 : c < 0 { return false }
                }
                if let e = end {
                    let c = cmp(row, (IndexValue(e.value), e.key), missingKey: e.strict ? -1 : 1)
                    if e.strict ? c >= 0 : c > 0 { return false }
                }
                return true
            }
            switch limit {
            case .first(let n)?: rows = Array(rows.prefix(n))
            case .last(let n)?: rows = Array(rows.suffix(n))
            case nil: break
            }
            #expect(q.select(from: data).map(\.0) == rows.map(\.1), "\(q)")
        }
    }
}
