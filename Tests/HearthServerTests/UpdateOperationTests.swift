import Foundation
import HearthCore
import HearthDatabase
@testable import HearthServer
import HearthStore
import HearthTestSupport
import Logging
import Testing

/// A multi-path update (REST PATCH, realtime `m`/`om`) checked in O(n log n) however it is shaped
/// (issue 30 §4), with the same answers as before on small ones.
@Suite("Multi-path update checks", .cpuHeavy)
struct UpdateOperationTests {
    static func controller() -> DatabaseController {
        let registry = NamespaceRegistry(factory: MemoryStoreFactory(), clock: { 0 }, initialRules: .initial(dev: true), defaultNamespace: "t")
        return DatabaseController(
            configuration: ServerConfiguration(port: 0, adminToken: "owner"), registry: registry,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), auth: nil)
    }

    static func members(_ json: String) throws -> [JSONMember] {
        guard case .object(let members) = try JSONValue.parse(json) else { throw RestError.badRequest("not an object") }
        return members
    }

    /// The message of the 400 an update gets, or nil when it is accepted.
    static func refusal(_ json: String, at path: Path = .root) throws -> String? {
        do {
            _ = try controller().service.updateOperation(try members(json), at: path)
            return nil
        } catch let error as DatabaseError {
            guard case .invalid(let message) = error else { throw error }
            return message
        }
    }

    @Test func overlapsAndRepeatsAreRefused() throws {
        #expect(try Self.refusal(#"{"a":1,"b/.priority":2,"c/d/.priority":3,".priority":4}"#) == nil)
        #expect(try Self.refusal(#"{"a":1,"a/b/.priority":2}"#)?.contains("priority separately") == true)
        #expect(try Self.refusal(#"{"a/b":1,"a/b/.priority":2}"#)?.contains("priority separately") == true)
        #expect(try Self.refusal(#"{"a/b":1,"a/.priority":2}"#) == nil, "a priority above a value is its own write")
        #expect(try Self.refusal(#"{"a/.priority":1,"a//.priority":2}"#)?.contains("twice") == true)
        #expect(try Self.refusal(#"{"a":1,"a/b":2}"#)?.contains("overlapping") == true)
    }

    @Test func pathsMixedWithPrioritiesAreCheckedInNLogN() throws {
        // n paths and n `k/.priority` entries: comparing each priority with every path was O(n²),
        // minutes for this many; looking up each priority's ancestors is a fraction of a second.
        let count = 50_000
        var members: [JSONMember] = []
        for i in (0..<count).reversed() {
            members.append(JSONMember("list/k\(i)", .int(Int64(i))))
            members.append(JSONMember("list/p\(i)/.priority", .int(1)))
        }
        let controller = Self.controller()
        var operation: WriteRequest.Operation?
        let elapsed = try threadCPUSeconds { operation = try controller.service.updateOperation(members, at: Path("root")) }
        guard case .update(let entries, let priorities)? = operation else { Issue.record("not an update"); return }
        #expect(entries.count == count && priorities.count == count)
        #expect(elapsed < 20, "checking \(members.count) entries took \(elapsed) s of CPU")
    }
}
