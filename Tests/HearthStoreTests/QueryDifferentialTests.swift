import HearthCore
import HearthStore
import Testing

/// Random data, random queries and random updates: every backend (with its indexes) must return
/// exactly what evaluating the query over the whole node returns.
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
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: q.limit = .first(Int.random(in: 0...5, using: &rng))
        case 1: q.limit = .last(Int.random(in: 0...5, using: &rng))
        default: break
        }
        return q
    }

    @Test(arguments: Backend.allCases)
    func indexedQueriesAgreeWithScans(backend: Backend) async throws {
        let store = try await backend.makeStore()
        let specs = [
            IndexSpec(pattern: ["items"], index: "score"),
            IndexSpec(pattern: ["items"], index: "r/pos"),
            IndexSpec(pattern: ["items"], index: ".value"),
            IndexSpec(pattern: ["groups", "$g"], index: "score"),
        ]
        try await store.write { try $0.setIndexes(specs) }
        var rng = SplitMix64(seed: 7)
        for round in 0..<150 {
            // A random write: whole location, one child, a child's field, or a delete.
            let key = Self.keys.randomElement(using: &rng)!
            let base = Bool.random(using: &rng) ? "items" : "groups/g\(Int.random(in: 0...1, using: &rng))"
            let node: Node
            let path: String
            switch Int.random(in: 0..<7, using: &rng) {
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
                    let (viaStore, whole) = try await store.snapshot { r in (try r.query(l, q), try r.read(l)) }
                    let expected = q.apply(to: whole)
                    #expect(viaStore == expected, "round \(round) query \(q) at \(location)")
                    if viaStore != expected { return }
                }
            }
        }
    }
}
