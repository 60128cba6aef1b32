import HearthTestSupport
import Testing
@testable import HearthCore

/// §1.8 push ids.
@Suite("Push ids", .cpuHeavy)
struct PushIDTests {
    static let alphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
    static let digit: [Character: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })

    static func digits(_ id: Substring) -> [Int] { id.map { digit[$0]! } }

    static func millis(of id: String) -> Int64 {
        digits(id.prefix(8)).reduce(Int64(0)) { $0 * 64 + Int64($1) }
    }

    @Test func alphabetIsInASCIIOrder() {
        let bytes = Array(PushIDTests.alphabet.utf8)
        #expect(bytes.count == 64)
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0 < $1 })
        #expect(PushIDGenerator.alphabet == bytes)
    }

    @Test func shapeAndTimestamp() {
        let g = PushIDGenerator(random: SplitMix64(seed: 1))
        let now: Int64 = 1_716_000_000_123
        let id = g.next(millis: now)
        #expect(id.count == 20)
        #expect(id.utf8.count == 20)
        #expect(id.allSatisfy { PushIDTests.digit[$0] != nil })
        #expect(id.first == "-", "every timestamp before 2109 starts with '-'")
        #expect(PushIDTests.millis(of: id) == now)
        #expect(g.next(millis: 0).hasPrefix("--------"))
        #expect(g.next(millis: 63).hasPrefix("-------z"))
        #expect(g.next(millis: 64).hasPrefix("------0-"))
        #expect(g.next(millis: 64 * 64 * 64 * 64 * 64 * 64 * 64 * 64 - 1).hasPrefix("zzzzzzzz"))
    }

    @Test func decodesTheProductionExample() {
        // "-Ost90fdbeEJ4iC_e3rZ" was observed in production; its first 8 characters are the time.
        let observed = "-Ost90fdbeEJ4iC_e3rZ"
        let ms = PushIDTests.millis(of: observed)
        #expect((1_704_067_200_000...1_893_456_000_000).contains(ms), "a 2024–2029 timestamp")
        #expect(PushIDGenerator(random: SplitMix64(seed: 9)).next(millis: ms).hasPrefix("-Ost90fd"))
    }

    /// 10,000 ids in one millisecond: strictly increasing, and the random part counts up by exactly one (base 64,
    /// carrying from the right).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func sameMillisecondIncrements(seed: UInt64) {
        let g = PushIDGenerator(random: SplitMix64(seed: seed))
        let ms: Int64 = 1_716_000_000_000
        var previous = g.next(millis: ms)
        var carries = 0
        for i in 1..<10_000 {
            let id = g.next(millis: ms)
            #expect(id > previous, "#\(i): \(id) ≤ \(previous)")
            #expect(id.prefix(8) == previous.prefix(8))
            var expected = PushIDTests.digits(previous.dropFirst(8))
            var j = 11
            while j >= 0, expected[j] == 63 {
                expected[j] = 0
                j -= 1
            }
            if j >= 0 { expected[j] += 1 }
            if j < 11 { carries += 1 }
            #expect(PushIDTests.digits(id.dropFirst(8)) == expected, "#\(i)")
            previous = id
        }
        #expect(carries >= 150, "10,000 increments must carry at least 10,000/64 times")
    }

    /// Replays a fixed list of 64-bit outputs (then zeros), to steer the 12 random digits.
    struct ScriptedRandom: RandomNumberGenerator, Sendable {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
    }

    /// A carry that ripples through all eleven low digits into the first random digit.
    @Test func carryRipplesIntoTheFirstRandomDigit() throws {
        let g = PushIDGenerator(random: ScriptedRandom(values: [0] + Array(repeating: .max, count: 11)))
        let first = g.next(millis: 0)
        try #require(first == "---------zzzzzzzzzzz", "the extreme generator outputs map to digits 0 and 63")
        #expect(g.next(millis: 0) == "--------0-----------")
        #expect(g.next(millis: 0) == "--------0----------0")
    }

    @Test func laterMillisecondsSortLater() {
        let g = PushIDGenerator(random: SplitMix64(seed: 4))
        var r = SplitMix64(seed: 44)
        var ms: Int64 = 1_500_000_000_000
        var previous = g.next(millis: ms)
        for _ in 0..<5000 {
            ms += Int64(r.below(3))  // sometimes the same millisecond, sometimes later
            let id = g.next(millis: ms)
            #expect(id > previous)
            #expect(PushIDTests.millis(of: id) == ms)
            previous = id
        }
        // Ids also sort by Key order (push ids are not integer-like).
        #expect(Key(g.next(millis: ms)) < Key(g.next(millis: ms + 1)))
    }

    @Test func newMillisecondRedrawsRandomPart() {
        let g = PushIDGenerator(random: SplitMix64(seed: 8))
        let a = g.next(millis: 1000)
        let b = g.next(millis: 1001)
        #expect(a.dropFirst(8) != b.dropFirst(8), "72 random bits are redrawn for a new millisecond")
    }

    @Test func injectedGeneratorMakesIdsDeterministic() {
        let g1 = PushIDGenerator(random: SplitMix64(seed: 77))
        let g2 = PushIDGenerator(random: SplitMix64(seed: 77))
        let g3 = PushIDGenerator(random: SplitMix64(seed: 78))
        let times: [Int64] = [5, 5, 9, 100, 100, 100, 2000]
        let a = times.map { g1.next(millis: $0) }
        #expect(a == times.map { g2.next(millis: $0) })
        #expect(a != times.map { g3.next(millis: $0) })
        #expect(Set(a).count == a.count)
    }

    @Test func concurrentCallersGetDistinctIncreasingIds() async {
        let g = PushIDGenerator(random: SplitMix64(seed: 5))
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<500).map { _ in g.next(millis: 42) } }
            }
            var all: [String] = []
            for await chunk in group {
                #expect(chunk == chunk.sorted(), "each caller sees increasing ids")
                all += chunk
            }
            return all
        }
        #expect(Set(ids).count == 4000)
    }
}
