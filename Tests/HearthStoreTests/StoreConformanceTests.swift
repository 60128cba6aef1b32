import HearthCore
import HearthStore
import Testing

/// One suite every backend must pass, so the embedded and scale-out engines agree on the tree.
@Suite("Store conformance")
struct StoreConformanceTests {
    @Test(arguments: Backend.allCases)
    func roundTripsNestedValuesInKeyOrder(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("u", #"{"b":{"x":1.5,"y":"s"},"a":true,"10":null,"2":[1,null,3],"-z":{".value":4,".priority":2}}"#)
        #expect(try await store.getJSON("u") == #"{"2":[1,null,3],"-z":4,"a":true,"b":{"x":1.5,"y":"s"}}"#)
        #expect(try await store.get("u").children.keys.map(\.string) == ["2", "-z", "a", "b"])
        #expect(try await store.getJSON("u", format: .export) == #"{"2":{"0":1,"2":3},"-z":{".priority":2,".value":4},"a":true,"b":{"x":1.5,"y":"s"}}"#)
        #expect(try await store.getJSON("u/b/y") == #""s""#)
        #expect(try await store.getJSON("missing") == "null")
    }

    @Test(arguments: Backend.allCases)
    func deletingTheLastChildRemovesEmptyParents(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("a", #"{"b":{"c":1}}"#)
        try await store.write { try $0.set(Path("a/b/c"), .empty) }
        #expect(try await store.getJSON("") == "null")
        try await store.put("a", #"{"b":{"c":1},"d":2}"#)
        try await store.put("a/b", "{}")
        #expect(try await store.getJSON("") == #"{"a":{"d":2}}"#)
    }

    @Test(arguments: Backend.allCases)
    func writingBelowALeafTurnsItIntoAnObject(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("a", #"{".value":5,".priority":"p"}"#)
        #expect(try await store.getJSON("a/b") == "null")
        try await store.put("a/b", "1")
        #expect(try await store.getJSON("a") == #"{"b":1}"#)
        #expect(try await store.get("a").priority == .string("p"))
        try await store.put("", "7")
        #expect(try await store.getJSON("") == "7")
        #expect(try await store.getJSON("a") == "null")
    }

    @Test(arguments: Backend.allCases)
    func prioritiesFollowTheirNode(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.write { try $0.setPriority(Path("nothing"), .int(1)) }
        #expect(try await store.getJSON("", format: .export) == "null")
        try await store.put("o", #"{"k":1}"#)
        try await store.write { try $0.setPriority(Path("o"), .string("z")) }
        #expect(try await store.getJSON("", format: .export) == #"{"o":{".priority":"z","k":1}}"#)
        try await store.write { try $0.set(Path("o/k"), .empty) }
        #expect(try await store.getJSON("", format: .export) == "null")
        try await store.put("o", #"{"k":1}"#)
        #expect(try await store.get("o").priority == nil)
    }

    @Test(arguments: Backend.allCases)
    func shallowListsChildKeysInKeyOrder(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("s", #"{"b":{"deep":{"x":1}},"a":1,"10":true,"2":"x","c":{".value":3,".priority":1}}"#)
        try await store.put("leaf", "5")
        func shallow(_ path: String, _ q: Query?) async throws -> String {
            try await store.snapshot { try $0.shallow(Path(path), q) }.jsonString()
        }
        #expect(try await shallow("s", nil) == #"{"2":true,"10":true,"a":true,"b":true,"c":true}"#)
        #expect(try await shallow("leaf", nil) == "5")
        #expect(try await shallow("missing", nil) == "null")
        #expect(try await shallow("s", Query(order: .key, limit: .first(2))) == #"{"2":true,"10":true}"#)
        #expect(try await shallow("s", Query(order: .key, start: .init(value: .string("a")), limit: .first(2))) == #"{"a":true,"b":true}"#)
        #expect(try await shallow("s", Query(order: .key, start: .init(value: .string("a"), strict: true))) == #"{"b":true,"c":true}"#)
    }

    @Test(arguments: Backend.allCases)
    func sequenceAndSettingsAreStored(backend: Backend) async throws {
        let store = try await backend.makeStore()
        #expect(try await store.snapshot { try $0.sequence() } == 0)
        try await store.write { tx in
            try tx.setSequence(42)
            try tx.setSetting("rules", "{}")
        }
        #expect(try await store.snapshot { try $0.sequence() } == 42)
        #expect(try await store.snapshot { try $0.setting("rules") } == "{}")
        #expect(try await store.snapshot { try $0.setting("other") } == nil)
    }

    @Test(arguments: Backend.allCases)
    func failedTransactionsWriteNothing(backend: Backend) async throws {
        struct Boom: Error {}
        let store = try await backend.makeStore()
        try await store.put("a", "1")
        await #expect(throws: Boom.self) {
            try await store.write { tx in
                try tx.set(Path("a"), .leaf(.int(2)))
                try tx.set(Path("b"), .leaf(.int(3)))
                throw Boom()
            }
        }
        #expect(try await store.getJSON("") == #"{"a":1}"#)
    }

    @Test(arguments: Backend.allCases)
    func summariesMatchTheFullRead(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("", #"{"a":{"b":{".value":1,".priority":5},"c":{"d":"x"}},"e":{".priority":"p","f":true},"g":"leaf"}"#)
        let paths = ["", "a", "a/b", "a/c", "a/c/d", "e", "e/f", "g", "g/h", "missing", "a/missing/deeper"]
        for p in paths {
            let (summary, full) = try await store.snapshot { r in (try r.summary(Path(p)), NodeSummary(try r.read(Path(p)))) }
            #expect(summary == full, "at /\(p)")
        }
        #expect(try await store.snapshot { try $0.summary(Path("e")) } == .object(priority: .string("p")))
        #expect(try await store.snapshot { try $0.summary(Path("a/b")) } == .leaf(.int(1), priority: .int(5)))
    }
}

/// Reads bounded by a row count, for answering on an event loop.
@Suite("Bounded reads")
struct BoundedReadTests {
    /// On the calling thread where the store can (what the server does on an event loop), else through a snapshot.
    private func bounded(_ store: any DatabaseStore, _ body: @escaping @Sendable (any StoreReader) throws -> Node?) async throws -> Node?? {
        if let now = try store.snapshotNow(body) { return .some(now) }
        return .some(try await store.snapshot(body))
    }

    @Test(arguments: Backend.allCases)
    func boundedReadsAnswerAtOnceAndRefuseLargeSubtrees(backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.put("small", #"{"a":1,"b":{"c":"x"},"p":{".value":2,".priority":5}}"#)
        let children = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        try await store.put("big", "{\(children)}")
        let full = try await store.get("small")
        let small = try #require(try await bounded(store) { try $0.read(Path("small"), rowLimit: 20) })
        #expect(small == full)
        #expect(try await bounded(store) { try $0.read(Path("missing"), rowLimit: 1) } == .some(.some(.empty)))
        let exact = try #require(try await bounded(store) { try $0.read(Path("big"), rowLimit: 20) })
        #expect(exact == (try await store.get("big")))
        let over = try #require(try await bounded(store) { try $0.read(Path("big"), rowLimit: 19) })
        #expect(over == nil)
        // `small` holds three values (a, b/c, and p with its priority); a priority on the object b
        // is a fourth, stored on its own.
        try await store.write { try $0.setPriority(Path("small/b"), .number(1)) }
        let withPriority = try await store.get("small")
        #expect(try await bounded(store) { try $0.read(Path("small"), rowLimit: 4) } == .some(.some(withPriority)))
        #expect(try await bounded(store) { try $0.read(Path("small"), rowLimit: 3) } == .some(nil))
    }
}
