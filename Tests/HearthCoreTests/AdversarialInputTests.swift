import Foundation
import HearthTestSupport
import Testing
@testable import HearthCore

/// Issue 30 §4: inputs shaped to make the server's work grow faster than their size. Each property is
/// checked against a plain reference (the old one-at-a-time algorithm) on random and worst-case orders,
/// and each worst case is run once at a size that took minutes while it was quadratic.
@Suite("Adversarial input", .cpuHeavy)
struct AdversarialInputTests {
    /// Seconds allowed for a worst case that is O(n log n) now (well under one in a debug build) and took
    /// minutes at this size when quadratic. Generous, so a busy machine cannot make it fail.
    static let generousSeconds = 20.0

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        try threadCPUSeconds(body)
    }

    /// Keys in the orders an attacker would pick, with duplicates and integer-like keys.
    static func keyOrders(_ r: inout SplitMix64, count: Int) -> [[Key]] {
        var keys = (0..<count).map { _ in Key(Gen.key(&r)) }
        if count > 2 { keys.append(keys[r.below(keys.count)]) }  // a duplicate
        var shuffled = keys
        for i in shuffled.indices.reversed() { shuffled.swapAt(i, r.below(i + 1)) }
        let ascending = keys.sorted()
        return [keys, shuffled, ascending, Array(ascending.reversed())]
    }

    @Test func childrenFromUnsortedPairsMatchInsertingOneByOne() {
        var r = SplitMix64(seed: 30)
        for round in 0..<300 {
            for keys in Self.keyOrders(&r, count: r.below(40)) {
                let pairs: [(Key, Node)] = keys.map { k in
                    (k, r.chance(15) ? .empty : .leaf(.int(Int64(r.below(1000)))))
                }
                var reference = Children()
                for (k, n) in pairs { reference[k] = n }
                let built = Children(unsorted: pairs)
                #expect(built == reference, "round \(round): \(keys.map(\.string))")
                #expect(zip(built.keys, built.keys.dropFirst()).allSatisfy { Key.compare($0, $1) < 0 })
            }
        }
    }

    @Test func mergingSortedUpdatesMatchesSettingOneByOne() {
        var r = SplitMix64(seed: 31)
        for _ in 0..<300 {
            let base = Children(unsorted: (0..<r.below(30)).map { _ in (Key(Gen.key(&r)), Node.leaf(.int(1))) })
            var updates: [Key: Node] = [:]
            for _ in 0..<r.below(30) {
                let key = r.chance(50) && !base.isEmpty ? base.keys[r.below(base.count)] : Key(Gen.key(&r))
                updates[key] = r.chance(30) ? .empty : .leaf(.int(Int64(r.below(9))))
            }
            let sorted = updates.sorted { Key.compare($0.key, $1.key) < 0 }.map { ($0.key, $0.value) }
            var reference = base
            for (k, n) in sorted { reference[k] = n }
            #expect(base.merging(sorted: sorted) == reference)
        }
    }

    @Test func objectsParseTheSameInEveryKeyOrder() throws {
        var r = SplitMix64(seed: 32)
        for _ in 0..<200 {
            for keys in Self.keyOrders(&r, count: r.below(30)) {
                let members = keys.enumerated().map { i, k in JSONMember(k.string, .int(Int64(i % 7))) }
                // The reference: inserting each member in turn (the last one of a name wins).
                var reference = Children()
                for m in members { reference[Key(m.key)] = .leaf(Leaf(json: m.value)!) }
                #expect(try Node(json: .object(members)) == Node(.children(reference)))
                // A null later in the object removes the earlier value, as it always did.
                if let first = members.first {
                    let removed = try Node(json: .object(members + [JSONMember(first.key, .null)]))
                    #expect(removed.child(Key(first.key)).isEmpty)
                }
            }
        }
    }

    @Test func descendingKeysAtTheMaximumSizeParseInNLogN() throws {
        // 400,000 keys in descending order (about 6 MB of JSON): inserting each at the front moved every
        // child already there, minutes of work; sorting once takes a fraction of a second.
        let count = 400_000
        var text = "{"
        for i in stride(from: count - 1, through: 0, by: -1) {
            text += "\"k\(i)\":\(i)" + (i == 0 ? "}" : ",")
        }
        let json = try JSONValue.parse(text)
        var node = Node.empty
        let elapsed = try Self.seconds { node = try Node(json: json) }
        #expect(node.childCount == count)
        #expect(node.children.keys.first == Key("k0"))
        #expect(elapsed < Self.generousSeconds, "parsing \(count) descending keys took \(elapsed) s")
    }

    /// The resolution one placeholder at a time, as it was: the reference for the one-pass version.
    static func resolvedOneByOne(_ write: ParsedWrite, now: Int64, current: (Path) -> Node) -> Node {
        var node = write.node
        for p in write.placeholders.filter({ !$0.isPriority }) + write.placeholders.filter(\.isPriority) {
            let leaf: Leaf
            switch p.value {
            case .timestamp: leaf = .int(now)
            case .increment(let delta):
                let stored = current(p.path)
                leaf = ServerValue.add(p.isPriority ? stored.priority : stored.leafValue, delta)
            }
            let existing = node.child(at: p.path)
            node = node.setting(p.path, to: p.isPriority ? existing.withPriority(leaf) : .leaf(leaf, priority: p.priority ?? existing.priority))
        }
        return node
    }

    /// A write mixing plain values, server values as values and as priorities, `.value` forms and nesting.
    static func serverValueJSON(_ r: inout SplitMix64, depth: Int = 0) -> JSONValue {
        func sv() -> JSONValue {
            r.chance(50)
                ? .object([JSONMember(".sv", .string("timestamp"))])
                : .object([JSONMember(".sv", .object([JSONMember("increment", .int(Int64(r.below(5))))]))])
        }
        switch r.below(depth >= 3 ? 4 : 6) {
        case 0: return .int(Int64(r.below(100)))
        case 1: return sv()
        case 2: return .object([JSONMember(".value", sv()), JSONMember(".priority", r.chance(50) ? sv() : .int(3))])
        case 3: return .null
        default:
            var members = (0..<r.below(8)).map { _ in JSONMember(Gen.key(&r), serverValueJSON(&r, depth: depth + 1)) }
            if r.chance(40) { members.append(JSONMember(".priority", r.chance(70) ? sv() : .string("p"))) }
            for i in members.indices.reversed() { members.swapAt(i, r.below(i + 1)) }
            return .object(members)
        }
    }

    @Test func serverValuesResolveAsOneAtATime() throws {
        var r = SplitMix64(seed: 33)
        for round in 0..<500 {
            let stored = try Node(json: Gen.nodeJSON(&r, maxDepth: 3))
            let json = Self.serverValueJSON(&r)
            guard let write = try? Node.parseWrite(json) else { continue }
            let current = { (p: Path) in stored.child(at: p) }
            let expected = Self.resolvedOneByOne(write, now: 1_700_000_000_000, current: current)
            #expect(try write.resolved(now: 1_700_000_000_000, current: current) == expected, "round \(round): \(json)")
        }
    }

    @Test func aRepeatedNameReplacesTheEarlierServerValues() throws {
        let replaced = try Node.parseWrite(JSONValue.parse(#"{"a":{".sv":"timestamp"},"b":2,"a":1}"#))
        #expect(replaced.placeholders.isEmpty)
        #expect(try replaced.resolved(now: 5) { _ in .empty } == node(#"{"a":1,"b":2}"#))
        let kept = try Node.parseWrite(JSONValue.parse(#"{"a":1,"a":{"x":{".sv":"timestamp"}},"a":{"y":{".sv":"timestamp"}}}"#))
        #expect(kept.placeholders.map(\.path) == [Path("a/y")])
        #expect(try kept.resolved(now: 5) { _ in .empty } == node(#"{"a":{"y":5}}"#))
        // A server value is a child: `.value` beside it is refused like `.value` beside any child.
        #expect(throws: ValidationError.self) { try Node.parseWrite(JSONValue.parse(#"{"x":{".sv":"timestamp"},".value":5}"#)) }
    }

    @Test func manyServerValuesUnderOneParentResolveInNLogN() throws {
        let count = 200_000
        let members = (0..<count).reversed().map { i in
            JSONMember("k\(i)", .object([JSONMember(".sv", i % 2 == 0 ? .string("timestamp") : .object([JSONMember("increment", .int(1))]))]))
        }
        let write = try Node.parseWrite(.object(members + [JSONMember(".priority", .object([JSONMember(".sv", .string("timestamp"))]))]))
        #expect(write.placeholders.count == count + 1)
        var node = Node.empty
        let elapsed = try Self.seconds { node = try write.resolved(now: 7) { _ in .leaf(.int(41)) } }
        #expect(node.childCount == count)
        #expect(node.priority == .int(7))
        #expect(node.child(Key("k1")).leafValue == .int(42))
        #expect(elapsed < Self.generousSeconds, "resolving \(count) server values took \(elapsed) s")
    }

    @Test func updatingManyPathsMatchesSettingOneByOne() {
        var r = SplitMix64(seed: 34)
        for _ in 0..<400 {
            let base = (try? Node(json: Gen.nodeJSON(&r, maxDepth: 3))) ?? .empty
            var paths: [Path] = []
            var values: [Node] = []
            for _ in 0..<r.below(12) {
                let path = Path((0..<(1 + r.below(3))).map { _ in Key(r.pick(["a", "b", "1", "2", "zz"])) })
                // Non-overlapping, as the writer's callers guarantee.
                if paths.contains(where: { $0.isAncestor(ofOrEqualTo: path) || path.isAncestor(ofOrEqualTo: $0) }) { continue }
                paths.append(path)
                values.append(r.chance(30) ? .empty : .leaf(.int(Int64(r.below(9))), priority: r.chance(20) ? .int(1) : nil))
            }
            var reference = base
            for (p, v) in zip(paths, values) { reference = reference.setting(p, to: v) }
            #expect(base.updating(paths) { i, _ in values[i] } == reference, "\(paths)")
        }
    }

    /// The bound parser as it was (each comma from the back, parsing the text before it): the reference.
    static func boundByEveryComma(_ text: String, strict: Bool) throws(QueryError) -> Query.Bound {
        if let v = try? JSONValue.parse(text) { return try Query.Bound(value: Query.primitive(v), key: nil, strict: strict) }
        var idx = text.endIndex
        while let comma = text[..<idx].lastIndex(of: ",") {
            if let v = try? JSONValue.parse(String(text[..<comma])),
                case .string(let name)? = try? JSONValue.parse(String(text[text.index(after: comma)...]))
            {
                guard let key = try? Key.validated(name) else { throw QueryError("Invalid key in query bound") }
                return try Query.Bound(value: Query.primitive(v), key: key, strict: strict)
            }
            idx = comma
        }
        throw QueryError("Constraint index field must be a JSON primitive")
    }

    @Test func queryBoundsParseAsTheyDidByEveryComma() {
        var r = SplitMix64(seed: 35)
        let pieces = ["1", "-2.5", "true", "null", #""a,b""#, #""x""#, #""""#, ",", " ", "[1,1]", "{}", #""\"""#, #""a.b""#, "[", "\"", "tru", "1e"]
        for _ in 0..<5000 {
            let text = (0..<(1 + r.below(4))).map { _ in r.pick(pieces) }.joined()
            let strict = r.chance(50)
            let expected = Result { () throws(QueryError) in try Self.boundByEveryComma(text, strict: strict) }
            let actual = Result { () throws(QueryError) in try Query.bound(text, strict: strict) }
            #expect(actual == expected, "\(text)")
        }
    }

    @Test func longArrayBoundsAreReadOnce() {
        // `[1,1,1,…` (unclosed, or closed and followed by a name): every prefix up to a comma was parsed
        // again, O(n²) in the bound's length.
        let count = 400_000
        let open = "[" + String(repeating: "1,", count: count) + "1"
        for text in [open, open + "]", open + #"],"k""#, open + #","k""#] {
            var outcome: Result<Query.Bound, QueryError>?
            let elapsed = Self.seconds { outcome = Result { () throws(QueryError) in try Query.bound(text, strict: false) } }
            #expect(outcome == .failure(QueryError("Constraint index field must be a JSON primitive")))
            #expect(elapsed < Self.generousSeconds, "a \(text.utf8.count)-byte bound took \(elapsed) s")
        }
    }

    @Test func pathsCompareKeyByKeyWithAncestorsFirst() {
        #expect(Path.compare(Path("a"), Path("a/b")) < 0)
        #expect(Path.compare(Path("a/b"), Path("a")) > 0)
        #expect(Path.compare(Path("a/z"), Path("b")) < 0)
        #expect(Path.compare(Path("2/x"), Path("10")) < 0, "integer keys compare as numbers")
        #expect(Path.compare(Path("a/b"), Path("a/b")) == 0)
        #expect(Path.compare(.root, Path("a")) < 0)
    }
}
