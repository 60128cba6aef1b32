import Foundation
import HearthCore
import HearthFunctions
import HearthStore
import HearthTesting
import HearthWire
import NIOHTTP1
import Synchronization
import Testing

/// `Functions.countBy` and `AdminDatabase.atomically(once:)`: counts kept by triggers stay exact under concurrent
/// events, retries (at least once delivery) and events applied out of order.
@Suite("Counting aggregates")
struct CountByTests {
    typealias Live = FunctionsLiveTests

    /// Wishes counted per normalized name, labelled with the name as written.
    static func giftKey(_ wish: JSONValue) -> CountKey? {
        guard let name = wish["name"]?.stringValue else { return nil }
        return CountKey(SearchKey.normalize(name), label: .string(name))
    }

    static func put(_ port: Int, _ path: String, _ json: String) async throws {
        let r = try await Live.send(port, .PUT, "/\(path).json", json, headers: Live.owner)
        #expect(r.status == 200, "PUT \(path): \(r.body)")
    }

    static func get(_ port: Int, _ path: String) async throws -> JSONValue {
        try await Live.send(port, .GET, "/\(path).json", headers: Live.owner).json ?? .null
    }

    /// Polls until `path` holds `expected` (up to 30 s); returns the last value read.
    @discardableResult
    static func waitFor(_ port: Int, _ path: String, _ expected: JSONValue) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(30)
        var value = try await get(port, path)
        while value != expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            value = try await get(port, path)
        }
        #expect(value == expected, "\(path)")
        return value
    }

    static func entry(_ name: String, _ count: Int64) -> JSONValue {
        .object([JSONMember("count", .int(count)), JSONMember("name", .string(name))])
    }

    /// 60 wishes written at once, 40 of them one gift spelled three ways: the counts are exact, and a name with
    /// characters a key may not hold is stored under its escaped key.
    @Test func concurrentCreatesCountExactly() async throws {
        var functions = Functions()
        try functions.countBy("/wishes/{uid}/{wishId}", into: "topGifts", key: Self.giftKey)
        try await Live().withServer(functions) { port in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<60 {
                    let name = i < 40 ? ["Lego", "LEGO ", "lego"][i % 3] : (i < 55 ? "Puzzle" : "Harry Potter vol. 1")
                    group.addTask { try await Self.put(port, "wishes/u\(i % 7)/w\(i)", #"{"name":"\#(name)","price":\#(i)}"#) }
                }
                try await group.waitForAll()
            }
            try await Self.waitFor(port, "topGifts/lego/count", .int(40))
            try await Self.waitFor(port, "topGifts/puzzle", Self.entry("Puzzle", 15))
            let potter = CountKey("harry potter vol. 1").storedKey
            #expect(potter == "harry potter vol%2E 1")
            try await Self.waitFor(port, "topGifts/\(potter)", Self.entry("Harry Potter vol. 1", 5))
            // Settled: nothing more arrives.
            try await Task.sleep(for: .milliseconds(300))
            guard case .object(let entries) = try await Self.get(port, "topGifts") else {
                Issue.record("no topGifts")
                return
            }
            #expect(entries.count == 3)
            #expect(try await Self.get(port, "topGifts/lego/count") == .int(40))
            let label = try await Self.get(port, "topGifts/lego/name").stringValue
            #expect(["Lego", "LEGO ", "lego"].contains(label ?? ""))
        }
    }

    /// Renames move a count, edits that keep the key change nothing, deletes decrement and remove an entry at 0,
    /// and a value without a key is not counted until it gets one.
    @Test func renamesMoveCountsAndDeletesRemoveAtZero() async throws {
        var functions = Functions()
        try functions.countBy("/wishes/{uid}/{wishId}", into: "topGifts", key: Self.giftKey)
        try await Live().withServer(functions) { port in
            try await Self.put(port, "wishes/u1/a", #"{"name":"Lego"}"#)
            try await Self.put(port, "wishes/u1/b", #"{"name":"Lego"}"#)
            try await Self.put(port, "wishes/u2/c", #"{"name":"Puzzle"}"#)
            try await Self.waitFor(port, "topGifts", .object([JSONMember("lego", Self.entry("Lego", 2)), JSONMember("puzzle", Self.entry("Puzzle", 1))]))

            try await Self.put(port, "wishes/u1/b/name", #""Puzzle""#)
            try await Self.waitFor(port, "topGifts", .object([JSONMember("lego", Self.entry("Lego", 1)), JSONMember("puzzle", Self.entry("Puzzle", 2))]))

            // Same key: a description, or the name's case. The label stays the last one counted in.
            try await Self.put(port, "wishes/u1/b/description", #""the big one""#)
            try await Self.put(port, "wishes/u2/c/name", #""PUZZLE""#)
            // A value without a name is not counted; it is once it has one.
            try await Self.put(port, "wishes/u3/d", #"{"price":3}"#)
            try await Self.put(port, "wishes/u3/e", #"{"name":"Kite"}"#)
            try await Self.waitFor(port, "topGifts/kite", Self.entry("Kite", 1))
            #expect(try await Self.get(port, "topGifts/puzzle") == Self.entry("Puzzle", 2))
            try await Self.put(port, "wishes/u3/d/name", #""kite""#)
            try await Self.waitFor(port, "topGifts/kite", Self.entry("kite", 2))

            try await Self.put(port, "wishes/u1/a", "null")
            try await Self.waitFor(port, "topGifts/lego", .null)
            try await Self.put(port, "wishes/u1", "null")   // b
            try await Self.waitFor(port, "topGifts/puzzle/count", .int(1))
            try await Self.put(port, "wishes", "null")      // c, d, e: one write, one event each
            try await Self.waitFor(port, "topGifts", .null)
        }
    }

    /// A handler that fails after its atomic write: the outbox runs the event again, and it counts once. Each
    /// event ran twice, applying on the first run only; none became a dead letter.
    @Test func aRetriedEventCountsOnce() async throws {
        let runs = Runs()
        let aggregate = try CountAggregate(target: "retried", key: Self.giftKey)
        var functions = Functions()
        let policy = RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(20), maxBackoff: .milliseconds(100))
        try functions.onValueWritten("/items/{id}", retry: policy) { event, context in
            let wrote = try await aggregate.apply(
                eventID: event.id, before: event.before, after: event.after, namespace: event.namespace, in: context.database)
            runs.items.withLock { $0[event.id, default: []].append(wrote) }
            if event.attempt == 1 { throw FunctionsError("failing after the write, once") }
        }
        try await Live().withServer(functions) { port in
            for i in 0..<3 { try await Self.put(port, "items/i\(i)", #"{"name":"Lego"}"#) }
            try await Self.put(port, "items/i2/name", #""Kite""#)
            try await Self.put(port, "items/i1", "null")
            let deadline = ContinuousClock.now + .seconds(30)
            while runs.items.withLock({ $0.values.reduce(0) { $0 + $1.count } }) < 10, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let all = runs.items.withLock { $0 }
            #expect(all.count == 5)
            #expect(all.values.allSatisfy { $0 == [true, false] }, "\(all)")
            #expect(try await Self.get(port, "retried") == .object([JSONMember("kite", Self.entry("Kite", 1)), JSONMember("lego", Self.entry("Lego", 1))]))
            let dead = try await Live.send(port, .GET, "/.hearth/functions/deadLetters?queue=db:demo", headers: Live.owner).json
            #expect(dead?["deadLetters"] == .array([]))
        }
    }

    /// Events applied in every order, and repeated, end with the same exact counts; a count can be -1 between two
    /// events (not clamped), and the same event applied 20 times at once counts once.
    @Test func eventsInAnyOrderEndExact() async throws {
        var functions = Functions()
        try functions.callable("applyCount") { (input: JSONValue, _, context) -> JSONValue in
            let aggregate = try CountAggregate(target: input["target"]?.stringValue ?? "", key: Self.giftKey)
            let wrote = try await aggregate.apply(
                eventID: input["id"]?.stringValue ?? "", before: input["before"] ?? .null, after: input["after"] ?? .null, namespace: nil,
                in: context.database)
            return .bool(wrote)
        }
        try await Live().withServer(functions) { port in
            @Sendable func apply(_ target: String, _ id: String, _ before: String?, _ after: String?) async throws -> Bool {
                func wish(_ name: String?) -> String { name.map { #"{"name":"\#($0)"}"# } ?? "null" }
                let body = #"{"data":{"target":"\#(target)","id":"\#(id)","before":\#(wish(before)),"after":\#(wish(after))}}"#
                let r = try await Live.send(port, .POST, "/functions/applyCount", body, headers: Live.json)
                #expect(r.status == 200, "\(r.body)")
                return r.json?["result"] == .bool(true)
            }

            // A delete that runs before its create: -1 for a moment, then the entry is gone.
            #expect(try await apply("pair", "delete", "Lego", nil))
            #expect(try await Self.get(port, "pair/lego") == Self.entry("Lego", -1))
            #expect(try await apply("pair", "create", nil, "Lego"))
            #expect(try await Self.get(port, "pair") == .null)
            #expect(try await apply("pair", "create", nil, "Lego") == false)
            #expect(try await apply("pair", "delete", "Lego", nil) == false)
            #expect(try await Self.get(port, "pair") == .null)

            // Create, rename, rename again: every order (each twice) ends with one Car.
            let events: [(id: String, before: String?, after: String?)] = [("e1", nil, "Lego"), ("e2", "Lego", "Puzzle"), ("e3", "Puzzle", "Car")]
            let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
            for (n, order) in orders.enumerated() {
                for i in order + order {
                    _ = try await apply("chain\(n)", "chain\(n)-\(events[i].id)", events[i].before, events[i].after)
                }
                #expect(try await Self.get(port, "chain\(n)") == .object([JSONMember("car", Self.entry("Car", 1))]), "order \(order)")
            }

            // The same event delivered 20 times at once applies once.
            let applied = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await apply("dup", "same-event", nil, "Kite") } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(applied == 1)
            #expect(try await Self.get(port, "dup") == .object([JSONMember("kite", Self.entry("Kite", 1))]))

            // Same key before and after: nothing written, nothing claimed.
            #expect(try await apply("same", "same-key", "Lego", "LEGO") == false)
            #expect(try await Self.get(port, "same") == .null)
        }
    }

    /// What each event's runs answered (true: it wrote), by event id.
    final class Runs: Sendable {
        let items = Mutex<[String: [Bool]]>([:])
    }

    /// `atomically(once:)` itself: a first run that records no writes still claims its key, so a repeat does not
    /// run even when it would now write; a body that throws claims nothing.
    @Test func atomicallyOnceClaimsItsKeyEvenWithoutWrites() async throws {
        var functions = Functions()
        try functions.callable("once") { (input: JSONValue, _, context) -> JSONValue in
            let write = input["write"] == .bool(true)
            let fail = input["fail"] == .bool(true)
            let result = try await context.database.atomically(once: input["key"]?.stringValue ?? "") { data, writes -> Int64 in
                if fail { throw CallableError(.aborted, "Not now") }
                guard case .int(let n) = try data.value("counter") else {
                    if write { writes["counter"] = .int(1) }
                    return 0
                }
                if write { writes["counter"] = .int(n + 1) }
                return n
            }
            return result.map { .int($0) } ?? .null
        }
        try await Live().withServer(functions) { (port: Int) async throws in
            /// The result, or the status when it is not 200.
            func call(_ data: String) async throws -> JSONValue {
                let r = try await Live.send(port, .POST, "/functions/once", #"{"data":\#(data)}"#, headers: Live.json)
                return r.status == 200 ? (r.json?["result"] ?? .string("no result")) : .string("status \(r.status)")
            }
            #expect(try await call(#"{"key":"k1","write":false}"#) == .int(0))
            #expect(try await call(#"{"key":"k1","write":true}"#) == .null)
            #expect(try await Self.get(port, "counter") == .null)

            #expect(try await call(#"{"key":"k2","fail":true}"#) == .string("status 409"))
            #expect(try await call(#"{"key":"k2","write":true}"#) == .int(0))
            #expect(try await call(#"{"key":"k2","write":true}"#) == .null)
            #expect(try await call(#"{"key":"k3","write":true}"#) == .int(1))
            #expect(try await Self.get(port, "counter") == .int(2))
            // An empty key is refused.
            #expect(try await call(#"{"key":"","write":true}"#) == .string("status 500"))
        }
    }
}
