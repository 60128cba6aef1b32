import Foundation
import HearthCore
@testable import HearthRules
import HearthTestSupport
import Testing

/// `newData` for a multi-path update (issue 30 §4): answered from sorted writes, not a scan of all of
/// them per question, which made an update of n paths under rules that read `newData` O(n²).
@Suite("Rules overlay", .cpuHeavy)
struct OverlayTests {
    /// The overlay as it was, a scan of every write per question: the reference. Writes are listed
    /// deepest first, so its first match is the deepest one, as the sorted overlay picks.
    struct ScanningOverlay {
        let base: any RuleDataSource
        let writes: [(path: Path, node: Node)]

        func summary(at location: Path) throws -> NodeSummary {
            for w in writes where w.path.isAncestor(ofOrEqualTo: location) {
                return NodeSummary(w.node.child(at: Path(Array(location.keys[w.path.count...]))))
            }
            var deletesBelow = 0
            var addsBelow = false
            for w in writes where location.isAncestor(ofOrEqualTo: w.path) {
                if w.node.isEmpty { deletesBelow += 1 } else { addsBelow = true }
            }
            let before = try base.summary(at: location)
            if addsBelow { return .object(priority: before.priority) }
            guard deletesBelow > 0, case .object(let priority) = before else { return before }
            let keys = try base.childKeys(at: location, limit: deletesBelow + 1)
            for key in keys where try summary(at: location.child(key)) != .absent {
                return .object(priority: priority)
            }
            return .absent
        }
    }

    static let keys = ["a", "b", "1", "2", "zz"].map(Key.init)

    static func randomPath(_ r: inout SplitMix64, maxDepth: Int) -> Path {
        Path((0..<r.next(upperBound: UInt64(maxDepth + 1))).map { _ in keys[Int(r.next(upperBound: UInt64(keys.count)))] })
    }

    static func randomNode(_ r: inout SplitMix64, depth: Int = 0) -> Node {
        switch r.next(upperBound: UInt64(depth >= 2 ? 3 : 5)) {
        case 0: return .empty
        case 1: return .leaf(.int(Int64(r.next(upperBound: UInt64(9)))), priority: r.next(upperBound: UInt64(4)) == 0 ? .int(1) : nil)
        case 2: return .leaf(.string("s"))
        default:
            var node = Node.empty
            for _ in 0..<r.next(upperBound: UInt64(4)) {
                node = node.setting(Path([keys[Int(r.next(upperBound: UInt64(keys.count)))]]), to: randomNode(&r, depth: depth + 1))
            }
            return node.withPriority(r.next(upperBound: UInt64(3)) == 0 ? .string("p") : nil)
        }
    }

    @Test func answersAsTheScanDid() async throws {
        var r = SplitMix64(seed: 36)
        for round in 0..<400 {
            let base = MemoryRuleData(Self.randomNode(&r))
            var writes: [(path: Path, node: Node)] = []
            // Up to 20 writes: a scan up to `Overlay.scanLimit`, the sorted index past it.
            for _ in 0..<r.next(upperBound: UInt64(21)) {
                let path = Self.randomPath(&r, maxDepth: 3)
                if writes.contains(where: { $0.path == path }) { continue }
                writes.append((path, Self.randomNode(&r, depth: 1)))
            }
            writes.sort { $0.path.count > $1.path.count }
            let overlay = Overlay(base: base, writes: writes)
            let reference = ScanningOverlay(base: base, writes: writes)
            for _ in 0..<12 {
                let location = Self.randomPath(&r, maxDepth: 4)
                #expect(try overlay.summary(at: location) == reference.summary(at: location), "round \(round) at \(location)")
            }
            if round % 50 == 49 { await Task.yield() }
        }
    }

    @Test func manyPathsUnderNewDataRulesAreCheckedInNLogN() throws {
        // Every `.write` and `.validate` below reads newData at its own path and at the parent: with a
        // scan per question, 25,000 paths and 25,000 deletes took minutes.
        let rules = try RuleSet(source: """
            {"rules":{"list":{"$k":{".write":"newData.exists() || !data.exists()",".validate":"newData.parent().exists()"}}}}
            """)
        let count = 25_000
        var writes: [(path: Path, node: Node)] = (0..<count).map { (Path("list/k\($0)"), .leaf(.int(Int64($0)))) }
        writes += (0..<count).map { (Path("list/p\($0)"), Node.empty) }
        var allowed = false
        let seconds = threadCPUSeconds {
            allowed = rules.canWrite(writes, auth: nil, now: 0, data: MemoryRuleData(.empty)).allowed
        }
        #expect(allowed)
        #expect(seconds < 20, "checking \(writes.count) writes took \(seconds) s of CPU")
    }
}
