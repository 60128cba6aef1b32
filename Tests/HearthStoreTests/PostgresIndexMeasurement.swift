import Foundation
import HearthCore
import HearthStore
import Testing

/// How many children `PostgresIndexMeasurement` writes: `HEARTH_MEASURE_POSTGRES_INDEX`, nil when unset.
let measuredChildren = ProcessInfo.processInfo.environment["HEARTH_MEASURE_POSTGRES_INDEX"].flatMap { Int($0) }

/// A measurement, not a check of speed: one `orderBy="score"&limitToLast=10` query over many children on
/// PostgreSQL, answered by reading the location and sorting, then from the `.indexOn` index; it prints the
/// times and fails only when the two answers differ or miss the expected children.
///
/// `HEARTH_MEASURE_POSTGRES_INDEX=100000 HEARTH_TEST_POSTGRES=… swift test --filter PostgresIndexMeasurement`
/// (a debug build: the scan's time includes decoding every row in unoptimised Swift).
@Suite(
    "PostgreSQL: index measurement",
    .enabled(
        if: PostgresTestServer.url != nil && measuredChildren != nil,
        "a measurement: set HEARTH_MEASURE_POSTGRES_INDEX to a number of children (and HEARTH_TEST_POSTGRES)"))
struct PostgresIndexMeasurement {
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }

    static func milliseconds(_ s: Double) -> String { String(format: "%.2f ms", s * 1000) }

    @Test func orderByChildLimitToLast() async throws {
        let n = try #require(measuredChildren)
        let store = try await Backend.postgres.makeStore()
        var rng = SplitMix64(seed: 42)
        var members: [(Key, Node)] = []
        var scores: [(score: Int64, key: String)] = []
        for i in 0..<n {
            let key = "i" + String(repeating: "0", count: max(0, 7 - String(i).count)) + String(i)
            let score = Int64(rng.next() % 1_000_000_000)
            scores.append((score, key))
            let child = try Node(json: .object([JSONMember("score", .int(score)), JSONMember("name", .string("item-" + key))]))
            members.append((Key(key), child))
        }
        let items = Node(.children(Children(unsorted: members)))
        let expected = Set(scores.sorted { ($0.score, $0.key) < ($1.score, $1.key) }.suffix(10).map(\.key))
        let query = Query(order: .child(Path("score")), limit: .last(10))
        let location = Path("items")

        let seed = try await Self.seconds { try await store.write { try $0.set(location, items) } }
        var answers: [Node] = []
        func run(_ times: Int) async throws -> [Double] {
            var samples: [Double] = []
            for _ in 0..<times {
                var answer = Node.empty
                samples.append(try await Self.seconds { answer = try await store.snapshot { try $0.query(location, query) } })
                answers.append(answer)
            }
            return samples
        }
        // Writes of one new child each (scores below every seeded one, so the answer stays).
        func writes(_ prefix: String) async throws -> [Double] {
            var samples: [Double] = []
            for i in 0..<10 {
                let path = location.child(Key(prefix + String(i)))
                samples.append(try await Self.seconds { try await store.write { try $0.set(path, json(#"{"score":-1,"name":"w"}"#)) } })
            }
            return samples
        }
        let plainWrites = try await writes("w")
        let scans = try await run(5)
        let build = try await Self.seconds {
            try await store.write { try $0.setIndexes([IndexSpec(pattern: ["items"], index: "score")]) }
        }
        let indexed = try await run(20)
        let indexedWrites = try await writes("x")
        let first = try #require(answers.first)
        #expect(Set(first.children.keys.map(\.string)) == expected)
        let allAgree = answers.allSatisfy { $0 == first }
        #expect(allAgree, "the scan's and the index's answers differ")
        print(
            """
            PostgreSQL, \(n) children, orderBy "score" limitToLast 10 (median; debug build)
              seeding the location (one write)      \(Self.milliseconds(seed))
              query, no index (read all, sort)      \(Self.milliseconds(Self.median(scans)))  (\(scans.map(Self.milliseconds).joined(separator: ", ")))
              building the index (setIndexes)       \(Self.milliseconds(build))
              query from the index                  \(Self.milliseconds(Self.median(indexed)))  (min \(Self.milliseconds(indexed.min()!)), max \(Self.milliseconds(indexed.max()!)))
              a one-child write, no index           \(Self.milliseconds(Self.median(plainWrites)))
              a one-child write, index maintained   \(Self.milliseconds(Self.median(indexedWrites)))
            """)
    }
}
