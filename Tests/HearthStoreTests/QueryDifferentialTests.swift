import HearthCore
@testable import HearthPostgres
@testable import HearthSQLite
import HearthStore
import Testing

/// Random data, random queries and random updates: every backend (with its indexes) must return
/// exactly what evaluating the query over the whole node returns, and the backends that keep indexes
/// must answer every query an index covers from that index.
@Suite("Query differential")
struct QueryDifferentialTests {
    static func randomValue(_ rng: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: -5...5, using: &rng))
        case 3: return .double(Double(Int.random(in: -20...20, using: &rng)) / 4 + 0.125)
        case 4: return .string(["a", "b", "bb", "B", "10", "é", "😀", ""].randomElement(using: &rng)!)
        case 5: return .object([JSONMember("x", .int(1))])
        default: return .int(Int64.random(in: 0...3, using: &rng))
        }
    }

    static func randomChild(_ rng: inout SplitMix64) -> JSONValue {
        var members = [JSONMember("name", .string("n"))]
        let score = randomValue(&rng)
        if score != .null { members.append(JSONMember("score", score)) }
        if Bool.random(using: &rng) { members.append(JSONMember("r", .object([JSONMember("pos", randomValue(&rng))]))) }
        return .object(members)
    }

    static let keys = ["1", "2", "10", "-1", "007", "a", "b", "B", "-Nx", "zz", "é", "k9", "0", "3"]

    static func randomBound(_ rng: inout SplitMix64, order: Query.Order) -> Query.Bound {
        let value: Leaf?
        if order == .key {
            value = .string(keys.randomElement(using: &rng)!)
        } else {
            value = Leaf(json: randomValue(&rng))
        }
        let key = order != .key && Bool.random(using: &rng) ? Key(keys.randomElement(using: &rng)!) : nil
        return Query.Bound(value: value, key: key, strict: Bool.random(using: &rng))
    }

    static func randomQuery(_ rng: inout SplitMix64) -> Query {
        let orders: [Query.Order] = [.key, .value, .priority, .child(Path("score")), .child(Path("r/pos"))]
        let order = orders.randomElement(using: &rng)!
        var q = Query(order: order)
        if Int.random(in: 0..<3, using: &rng) == 0 { q.start = randomBound(&rng, order: order) }
        if Int.random(in: 0..<3, using: &rng) == 0 { q.end = randomBound(&rng, order: order) }
        if Int.random(in: 0..<8, using: &rng) == 0 {
            // equalTo: one inclusive bound on both sides.
            var b = randomBound(&rng, order: order)
            b.strict = false
            (q.start, q.end) = (b, b)
        }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: q.limit = .first(Int.random(in: 0...5, using: &rng))
        case 1: q.limit = .last(Int.random(in: 0...5, using: &rng))
        default: break
        }
        return q
    }

    /// The answer of the backend's index alone: nil when it has no index for the query, and nil inside
    /// when the backend keeps no indexes (memory).
    static func indexedAnswer(_ reader: any StoreReader, _ path: Path, _ query: Query) throws -> Node?? {
        if let sqlite = reader as? SQLiteTransaction { return .some(try sqlite.indexedQuery(path, query)) }
        if let postgres = reader as? PostgresTransaction { return .some(try postgres.indexedQuery(path, query)) }
        return .none
    }

    static let allSpecs = [
        IndexSpec(pattern: ["items"], index: "score"),
        IndexSpec(pattern: ["items"], index: "r/pos"),
        IndexSpec(pattern: ["items"], index: ".value"),
        IndexSpec(pattern: ["groups", "$g"], index: "score"),
    ]

    /// The declarations in force, round by round: every few rounds some go and come back, so indexes are
    /// also built from data already stored, and dropped.
    static func specs(forRound round: Int) -> [IndexSpec] {
        switch round / 30 % 3 {
        case 1: return [allSpecs[3], allSpecs[0]]
        case 2: return [allSpecs[1], allSpecs[2], IndexSpec(pattern: ["groups", "$g"], index: "r/pos")]
        default: return allSpecs
        }
    }

    @Test(arguments: Backend.allCases)
    func indexedQueriesAgreeWithScans(backend: Backend) async throws {
        let store = try await backend.makeStore()
        var specs = Self.specs(forRound: 0)
        try await store.write { [specs] in try $0.setIndexes(specs) }
        var rng = SplitMix64(seed: 7)
        var indexedAnswers = 0
        for round in 0..<180 {
            if Self.specs(forRound: round) != specs {
                specs = Self.specs(forRound: round)
                try await store.write { [specs] in try $0.setIndexes(specs) }
            }
            // A random write: whole location, one child, a child's field, or a delete.
            let key = Self.keys.randomElement(using: &rng)!
            let base = Bool.random(using: &rng) ? "items" : "groups/g\(Int.random(in: 0...1, using: &rng))"
            let node: Node
            let path: String
            switch Int.random(in: 0..<9, using: &rng) {
            case 7:
                // The deeper value path: set, or deleted when the value is null.
                path = base + "/" + key + "/r/pos"
                node = try Node(json: Self.randomValue(&rng))
            case 8:
                path = base + "/" + key + "/r"
                node = .empty
            case 5:
                // Above the indexed locations: the whole `groups` tree, wildcard level included.
                var groups: [JSONMember] = []
                for g in ["g0", "g1"] where Bool.random(using: &rng) {
                    var members: [JSONMember] = []
                    for k in Self.keys where Bool.random(using: &rng) { members.append(JSONMember(k, Self.randomChild(&rng))) }
                    groups.append(JSONMember(g, .object(members)))
                }
                path = "groups"
                node = try Node(json: .object(groups))
            case 6:
                // A leaf above an indexed location, later replaced by children again.
                path = Bool.random(using: &rng) ? "groups/g0" : "items"
                node = .leaf(.int(1))
            case 0:
                var members: [JSONMember] = []
                for k in Self.keys where Bool.random(using: &rng) { members.append(JSONMember(k, Self.randomChild(&rng))) }
                path = base
                node = try Node(json: .object(members))
            case 1:
                path = base + "/" + key
                node = try Node(json: Self.randomChild(&rng))
            case 2:
                path = base + "/" + key + "/score"
                node = try Node(json: Self.randomValue(&rng))
            case 3:
                path = base + "/" + key
                node = .empty
            default:
                path = base + "/" + key
                node = try Node(json: Self.randomValue(&rng))
            }
            let p = Path(path)
            try await store.write { try $0.set(p, node) }
            for _ in 0..<8 {
                let q = Self.randomQuery(&rng)
                for location in ["items", "groups/g0", "groups/g1"] {
                    let l = Path(location)
                    let (viaStore, whole, viaIndex) = try await store.snapshot { r in
                        (try r.query(l, q), try r.read(l), try Self.indexedAnswer(r, l, q))
                    }
                    let expected = q.apply(to: whole)
                    #expect(viaStore == expected, "round \(round) query \(q) at \(location)")
                    if viaStore != expected { return }
                    guard let viaIndex else { continue }
                    let covered = IndexSpec.name(for: q.order).map { name in specs.contains { $0.index == name && $0.matches(l) } } ?? false
                    #expect((viaIndex != nil) == covered, "round \(round) query \(q) at \(location): index used")
                    guard let viaIndex else { continue }
                    indexedAnswers += 1
                    // A leaf location has no children in the index; `query` answers it from the leaf.
                    var fromChildren = expected
                    if case .leaf = whole.content { fromChildren = .empty }
                    #expect(viaIndex == fromChildren, "round \(round) query \(q) at \(location): the index's own answer")
                    if viaIndex != fromChildren { return }
                }
            }
        }
        if backend != .memory {
            // Most rounds' queries have an index to use: a backend that stopped using them fails here.
            #expect(indexedAnswers > 500, "\(indexedAnswers) queries answered from an index")
        }
    }
}
