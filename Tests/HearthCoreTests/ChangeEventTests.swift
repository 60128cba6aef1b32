import Testing
@testable import HearthCore

/// §4.3 event generation: which event a listener at S receives for a commit at W.
@Suite("Change events")
struct ChangeEventTests {
    static func put(_ at: String, _ json: String) -> Change {
        Change(sequence: 1, path: Path(at), kind: .put(node(json)))
    }

    static func patch(_ at: String, _ entries: [(String, String)]) -> Change {
        Change(sequence: 2, path: Path(at), kind: .patch(entries.map { PatchEntry(path: Path($0.0), node: node($0.1)) }))
    }

    static func entries(_ list: [(String, String)]) -> [PatchEntry] {
        list.map { PatchEntry(path: Path($0.0), node: node($0.1)) }
    }

    // Rule 2: put at or below the listener.
    @Test(arguments: [
        ("/a", "/a", "/"), ("/", "/", "/"), ("/", "/users/-Nabc", "/users/-Nabc"), ("/a", "/a/b/c", "/b/c"),
        ("/root", "/root/users/k", "/users/k"),
    ])
    func putAtOrBelow(listener: String, write: String, eventPath: String) {
        let c = ChangeEventTests.put(write, #"{"x":1}"#)
        #expect(c.event(for: Path(listener)) == .put(Path(eventPath), node(#"{"x":1}"#)))
        #expect(c.touches(Path(listener)))
    }

    @Test func deleteIsAPutOfNull() {
        let c = ChangeEventTests.put("/a/b", "null")
        #expect(c.event(for: Path("/a")) == .put(Path("b"), .empty))
        #expect(c.event(for: Path("/a/b/c")) == .put(.root, .empty))
    }

    // Rule 3: put strictly above the listener → put "/" with the listener's new value.
    @Test func putAbove() {
        let c = ChangeEventTests.put("/a", #"{"b":{"c":1},"d":2}"#)
        #expect(c.event(for: Path("/a/b")) == .put(.root, node(#"{"c":1}"#)))
        #expect(c.event(for: Path("/a/b/c")) == .put(.root, .leaf(.int(1))))
        #expect(c.event(for: Path("/a/zz")) == .put(.root, .empty), "a listener whose value becomes null")
        #expect(ChangeEventTests.put("/", "5").event(for: Path("/x/y")) == .put(.root, .empty), "through a leaf is null")
        #expect(c.touches(Path("/a/b")))
    }

    // Rule 6: unrelated locations get nothing — including siblings that share a string prefix.
    @Test(arguments: [("/a/b", "/a/c"), ("/ab", "/a"), ("/a", "/ab"), ("/x", "/y/x"), ("/a/b/c", "/a/c")])
    func unrelated(write: String, listener: String) {
        let put = ChangeEventTests.put(write, "1")
        #expect(put.event(for: Path(listener)) == nil)
        #expect(!put.touches(Path(listener)))
        let patch = ChangeEventTests.patch(write, [("k", "1")])
        #expect(patch.event(for: Path(listener)) == nil)
        #expect(!patch.touches(Path(listener)))
    }

    // Rule 4: patch at or below the listener → patch at W relative to S, entries unchanged.
    @Test func patchAtOrBelow() {
        let list = [("-Nabc/since", "1840"), ("-Ndef/since", "1946"), ("-Nzzz", "null")]
        let c = ChangeEventTests.patch("/users", list)
        #expect(c.event(for: Path("/users")) == .patch(.root, ChangeEventTests.entries(list)))
        #expect(c.event(for: .root) == .patch(Path("users"), ChangeEventTests.entries(list)))
        #expect(c.touches(.root) && c.touches(Path("/users")))
    }

    // Rule 5: patch above the listener.
    @Test func patchAboveWithAnEntryAtOrAboveTheListener() {
        let c = ChangeEventTests.patch("/", [("a/b", #"{"z":{"q":1},"y":2}"#), ("c", "3")])
        #expect(c.event(for: Path("/a/b")) == .put(.root, node(#"{"z":{"q":1},"y":2}"#)), "entry exactly at S")
        #expect(c.event(for: Path("/a/b/z")) == .put(.root, node(#"{"q":1}"#)), "entry above S")
        #expect(c.event(for: Path("/a/b/nope")) == .put(.root, .empty))
        #expect(c.event(for: Path("/c")) == .put(.root, .leaf(.int(3))))
    }

    @Test func patchAboveWithEntriesBelowTheListener() {
        let c = ChangeEventTests.patch("/", [("s/x", "1"), ("s/y/z", "2"), ("t", "3"), ("su", "4")])
        #expect(c.event(for: Path("/s")) == .patch(.root, ChangeEventTests.entries([("x", "1"), ("y/z", "2")])))
        #expect(c.event(for: Path("/s/y")) == .patch(.root, ChangeEventTests.entries([("z", "2")])))
        #expect(c.event(for: Path("/s/w")) == nil, "no entry touches /s/w")
        #expect(!c.touches(Path("/s/w")))
        #expect(c.touches(Path("/s")))
    }

    @Test func patchAboveKeepsDeletes() {
        let c = ChangeEventTests.patch("/a", [("b/c", "null"), ("b/d", "1")])
        #expect(c.event(for: Path("/a/b")) == .patch(.root, ChangeEventTests.entries([("c", "null"), ("d", "1")])))
        #expect(c.event(for: Path("/a/b/c")) == .put(.root, .empty))
    }

    @Test func patchAboveNestedWritePath() {
        // PATCH /u {"jack/age": 32, "jill": {...}}: a listener on /u/jack/age gets a put; on /u/jill/name a put of the child.
        let c = ChangeEventTests.patch("/u", [("jack/age", "32"), ("jill", #"{"name":"Jill"}"#)])
        #expect(c.event(for: Path("/u/jack/age")) == .put(.root, .leaf(.int(32))))
        #expect(c.event(for: Path("/u/jack")) == .patch(.root, ChangeEventTests.entries([("age", "32")])))
        #expect(c.event(for: Path("/u/jill/name")) == .put(.root, .leaf(.string("Jill"))))
        #expect(c.event(for: Path("/u")) == .patch(.root, ChangeEventTests.entries([("jack/age", "32"), ("jill", #"{"name":"Jill"}"#)])))
        #expect(c.event(for: .root) == .patch(Path("u"), ChangeEventTests.entries([("jack/age", "32"), ("jill", #"{"name":"Jill"}"#)])))
        #expect(c.event(for: Path("/v")) == nil)
    }

    /// Applying the event a listener receives to its old view gives the same value as reading the new tree.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func eventsReproduceTheNewValue(seed: UInt64) {
        var r = SplitMix64(seed: seed)
        let names = ["a", "b", "c"]
        func randomPath(_ maxDepth: Int) -> Path {
            Path((0..<r.below(maxDepth + 1)).map { _ in Key(r.pick(names)) })
        }
        func randomValue() -> Node {
            switch r.below(4) {
            case 0: return .empty
            case 1: return .leaf(.int(Int64(r.below(10))))
            default:
                var n = Node.empty
                for _ in 0..<(1 + r.below(3)) { n = n.setting(randomPath(2), to: .leaf(.int(Int64(r.below(10))))) }
                return n
            }
        }
        var tree = Node.empty
        for _ in 0..<400 { tree = tree.setting(randomPath(3), to: .leaf(.int(Int64(r.below(10))))) }
        for i in 0..<1500 {
            let at = randomPath(2)
            let change: Change
            var after: Node
            if r.chance(50) {
                let v = randomValue()
                change = Change(sequence: UInt64(i), path: at, kind: .put(v))
                after = tree.setting(at, to: v)
            } else {
                // Non-overlapping entry paths: distinct first keys, each with its own (possibly deeper) tail.
                var entries: [PatchEntry] = []
                for first in names where r.chance(50) {
                    var keys = [Key(first)]
                    if r.chance(40) { keys.append(Key(r.pick(names))) }
                    entries.append(PatchEntry(path: Path(keys), node: randomValue()))
                }
                change = Change(sequence: UInt64(i), path: at, kind: .patch(entries))
                after = tree
                for e in entries { after = after.setting(at.appending(e.path), to: e.node) }
            }
            let listener = randomPath(3)
            let before = tree.child(at: listener)
            let expected = after.child(at: listener)
            var view = before
            switch change.event(for: listener) {
            case nil:
                #expect(expected == before, "#\(i): no event but \(listener) changed")
            case .put(let p, let n)?:
                view = view.setting(p, to: n)
            case .patch(let p, let es)?:
                for e in es { view = view.setting(p.appending(e.path), to: e.node) }
            }
            #expect(view == expected, "#\(i): listener \(listener), change at \(at)")
            tree = after
        }
    }
}
