import HearthCore
import Testing

@testable import Hearth

/// Child events for a few changed children come from one pass per change; for many, from sorting both versions.
/// Both must give the same events, in the same order, with the same previous siblings.
@Suite("Child event diff")
struct ChildDiffTests {
    static let orders: [Query.Order] = [.key, .priority, .value, .child(Path("score"))]

    static func randomChild(_ rng: inout SplitMix64, priorities: Bool) -> Node {
        let priority: Leaf? = priorities && Int.random(in: 0..<4, using: &rng) == 0 ? .int(Int64.random(in: 0..<3, using: &rng)) : nil
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Node.leaf(.int(Int64.random(in: 0..<5, using: &rng)), priority: priority)
        case 1: return Node.leaf(.string(["a", "b", "c"].randomElement(using: &rng)!), priority: priority)
        default:
            var children = Children()
            children[Key("score")] = .leaf(.int(Int64.random(in: 0..<5, using: &rng)))
            children[Key("name")] = .leaf(.string("n\(Int.random(in: 0..<3, using: &rng))"))
            return Node(.children(children), priority: priority)
        }
    }

    static func randomList(_ rng: inout SplitMix64, keys: [String], priorities: Bool) -> Node {
        var children = Children()
        for key in keys where Bool.random(using: &rng) { children[Key(key)] = randomChild(&rng, priorities: priorities) }
        return Node(.children(children))
    }

    @Test("the pass per change and the full sort agree, below and above the threshold")
    func fewChangesMatchTheFullDiff() async {
        var rng = SplitMix64(seed: 7)
        let keys = (0..<40).map { "k\($0)" } + ["1", "2", "10", "-3", "é", "e\u{301}"]
        var compared = 0
        var fewCompared = 0
        // Few enough to stay well under a second in a debug build, and yielding now and then: a long synchronous test
        // holds one of the few threads the other tests' engines run on.
        for round in 0..<400 {
            if round % 20 == 0 { await Task.yield() }
            // Lists without priorities take a shortcut in priority order (it is key order then).
            let priorities = Bool.random(using: &rng)
            let old = Self.randomList(&rng, keys: keys, priorities: priorities)
            var children = old.children
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                let key = Key(keys.randomElement(using: &rng)!)
                children[key] = Bool.random(using: &rng) ? nil : Self.randomChild(&rng, priorities: priorities)
            }
            let new = Node(.children(children))
            for order in Self.orders {
                let expected = ChildChange.fullDiff(old: old, new: new, order: order)
                let got = ChildChange.diff(old: old, new: new, order: order)
                #expect(got == expected, "order \(order)")
                compared += 1
                if expected.count <= ChildChange.fewChanges && !expected.isEmpty { fewCompared += 1 }
            }
        }
        // Both paths were exercised.
        #expect(fewCompared > 300)
        #expect(compared - fewCompared > 300)
    }

    @Test func leavesAndEmptyNodesHaveNoChildEvents() {
        let list = Node(.children({ var c = Children(); c[Key("a")] = .leaf(.int(1)); return c }()))
        #expect(ChildChange.diff(old: .leaf(.int(1)), new: .leaf(.int(2)), order: .priority).isEmpty)
        let removed = ChildChange.diff(old: list, new: .leaf(.int(2)), order: .priority)
        #expect(removed == [ChildChange(kind: .removed, key: Key("a"), node: .leaf(.int(1)), previousKey: nil)])
        #expect(ChildChange.diff(old: .empty, new: list, order: .key).map(\.kind) == [.added])
    }
}
