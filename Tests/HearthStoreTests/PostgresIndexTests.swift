import HearthCore
@testable import HearthPostgres
import HearthStore
import PostgresNIO
import Testing

/// What a write below an indexed child does to the child's row, decided from the written node alone
/// where it can be (no read of the tree).
@Suite("PostgreSQL: index row effects")
struct PostgresIndexEffectTests {
    static let cases: [(rest: String, node: String, valuePath: String?, effect: PostgresTransaction.ChildEffect)] = [
        ("", #"{"score":2,"name":"n"}"#, "score", .value(.leaf(.int(2)))),
        ("", #"{"name":"n"}"#, "score", .value(.null)),
        ("", "null", "score", .value(nil)),
        ("", "5", nil, .value(.leaf(.int(5)))),
        ("", #"{"a":1}"#, nil, .value(.object)),
        ("score", "5", "score", .value(.leaf(.int(5)))),
        ("score", #"{"x":1}"#, "score", .value(.object)),
        ("r", #"{"pos":"p"}"#, "r/pos", .value(.leaf(.string("p")))),
        ("r", "7", "r/pos", .value(.null)),
        ("r/pos/x", "1", "r", .value(.object)),
        ("name", #""x""#, nil, .value(.object)),
        ("name", #""x""#, "score", .unchangedOrNull),
        ("r/q", "1", "r/pos", .unchangedOrNull),
        ("score", "null", "score", .unknown),
        ("name", "null", "score", .unknown),
        ("name", "null", nil, .unknown),
    ]

    @Test(arguments: cases)
    func effectOfAWriteBelowAChild(rest: String, node: String, valuePath: String?, effect: PostgresTransaction.ChildEffect) {
        #expect(PostgresTransaction.effect(of: json(node), at: Path(rest), valuePath: valuePath.map { Path($0) }) == effect)
    }
}

/// Index declarations on PostgreSQL: rows built from the data already stored, kept for the specs that
/// stay, dropped with the ones that go, and built on opening for declarations stored before the rows
/// existed. (Query answers are checked against scans by the query differential suite.)
@Suite("PostgreSQL: indexes", .enabled(if: PostgresTestServer.url != nil, "HEARTH_TEST_POSTGRES is not set"))
struct PostgresIndexTests {
    /// Index rows per index id.
    static func rowCounts(_ namespace: String) async throws -> [Int64: Int] {
        try await PostgresTestServer.server().run { session in
            var counts: [Int64: Int] = [:]
            for row in try session.query("SELECT ix, count(*) FROM hearth_index_rows WHERE ns = \(namespace) GROUP BY ix") {
                let (ix, n) = try row.decode((Int64, Int64).self)
                counts[ix] = Int(n)
            }
            return counts
        }
    }

    /// Declared index ids by index name.
    static func ids(_ namespace: String) async throws -> [String: Int64] {
        try await PostgresTestServer.server().run { session in
            var ids: [String: Int64] = [:]
            for row in try session.query("SELECT spec, id FROM hearth_index_specs WHERE ns = \(namespace)") {
                let (spec, id) = try row.decode((String, Int64).self)
                ids[spec] = id
            }
            return ids
        }
    }

    /// The index's own answer (nil: no index covers the query) and the scan's.
    static func answers(_ store: any DatabaseStore, _ path: String, _ query: Query) async throws -> (indexed: Node?, scanned: Node) {
        try await store.snapshot { reader in
            let indexed = try (reader as? PostgresTransaction)?.indexedQuery(Path(path), query)
            return (indexed, query.apply(to: try reader.read(Path(path))))
        }
    }

    @Test func changingDeclarationsKeepsBuildsAndDropsRows() async throws {
        let namespace = PostgresTestServer.freshNamespace()
        let store = try await PostgresTestServer.factory().open(namespace: namespace)
        try await store.put("items", #"{"a":{"score":3,"name":"x"},"b":{"score":1},"c":{"name":"y"},"d":5}"#)
        let score = IndexSpec(pattern: ["items"], index: "score")
        let name = IndexSpec(pattern: ["items"], index: "name")
        let value = IndexSpec(pattern: ["items"], index: ".value")
        try await store.write { try $0.setIndexes([score, name]) }
        let before = try await Self.ids(namespace)
        let scoreID = try #require(before["score"])
        let nameID = try #require(before["name"])
        #expect(try await Self.rowCounts(namespace) == [scoreID: 4, nameID: 4])

        try await store.write { try $0.setIndexes([name, value, name]) }
        let after = try await Self.ids(namespace)
        #expect(after["score"] == nil)
        #expect(after["name"] == nameID)
        let valueID = try #require(after[".value"])
        #expect(try await Self.rowCounts(namespace) == [nameID: 4, valueID: 4])

        let byScore = try await Self.answers(store, "items", Query(order: .child(Path("score")), limit: .last(1)))
        #expect(byScore.indexed == nil)
        for query in [
            Query(order: .child(Path("name")), limit: .last(2)),
            Query(order: .value, start: Query.Bound(value: nil, key: Key("b"), strict: true), limit: .first(2)),
        ] {
            let (indexed, scanned) = try await Self.answers(store, "items", query)
            #expect(indexed == scanned, "\(query)")
            #expect(indexed?.isEmpty == false, "\(query)")
        }
    }

    @Test func declarationsStoredBeforeIndexRowsAreBuiltWhenTheNamespaceOpens() async throws {
        let namespace = PostgresTestServer.freshNamespace()
        let factory = try await PostgresTestServer.factory()
        let store = try await factory.open(namespace: namespace)
        try await store.put("groups", #"{"g0":{"a":{"score":2},"b":{"score":1}},"g1":{"c":{"score":0}}}"#)
        // What a node before schema version 4 left: the declaration, no rows.
        _ = try await PostgresTestServer.server().run { session in
            try session.execute(
                "INSERT INTO hearth_index_specs(ns, id, pattern, spec, built) VALUES (\(namespace), 0, 'groups/$g', 'score', false)")
        }
        let query = Query(order: .child(Path("score")), limit: .first(1))
        #expect(try await Self.answers(store, "groups/g0", query).indexed == nil)

        let reopened = try await factory.open(namespace: namespace)
        #expect(try await Self.rowCounts(namespace) == [0: 3])
        let (indexed, scanned) = try await Self.answers(reopened, "groups/g0", query)
        #expect(indexed == json(#"{"b":{"score":1}}"#))
        #expect(indexed == scanned)
        // Writes from now on keep the rows.
        try await reopened.put("groups/g1/d", #"{"score":-1}"#)
        #expect(try await Self.rowCounts(namespace) == [0: 4])
    }
}
