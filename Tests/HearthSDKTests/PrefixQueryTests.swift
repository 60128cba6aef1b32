import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hearth
import HearthCore
import HearthFunctions
import HearthSQLite
import HearthStore
import HearthTesting
import Synchronization
import Testing

/// `queryStarting(withPrefix:)` against a live server whose trigger stores `searchKey = SearchKey.normalize(displayName)`,
/// with `.indexOn` enforced, in memory and in SQLite (whose index orders by an encoding of UTF-16 code units).
@Suite("Prefix queries (live)")
struct PrefixQueryTests {
    enum Backend: String, CaseIterable, Sendable {
        case memory, sqlite
    }

    static let rules = #"{"rules":{".read":true,".write":true,"users":{".indexOn":["searchKey"]}}}"#
    static let names = ["jozsef1": "József", "jozsef2": "Jozsef", "joanna": "Joanna", "jorg": "Jörg", "zoe": "Zoë"]

    /// The documented pattern: a trigger keeps the key, so clients cannot fake it.
    static func functions() throws -> Functions {
        var functions = Functions()
        try functions.onValueWritten("/users/{uid}") { event, context in
            guard let uid = event.params["uid"], case .object = event.after else { return }
            let key = event.after["displayName"]?.stringValue.map { JSONValue.string(SearchKey.normalize($0)) } ?? .null
            if (event.after["searchKey"] ?? .null) != key {
                try await context.database.set("/users/\(uid)/searchKey", key)
            }
        }
        return functions
    }

    /// A server with the rules and the users of `names` (plus one without a name), their keys stored; `body` gets the
    /// SDK's `/users` and the admin REST client.
    func withUsers(_ backend: Backend, _ body: @Sendable (DatabaseReference, AdminREST) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-prefix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stores: any StoreFactory = backend == .memory ? MemoryStoreFactory() : SQLiteStoreFactory(folder: folder.path, durability: .normal)
        let server = LiveServer(stores: stores, functions: try Self.functions())
        let port = try await server.start()
        let app = HearthApp(name: "prefix-\(UUID().uuidString)", options: appOptions(port: port))
        do {
            let rest = AdminREST(port: port)
            try await rest.put(".settings/rules", Self.rules)
            let users = app.database.reference("users")
            for (uid, name) in Self.names {
                try await users.child(uid).setValue(json: .object([JSONMember("displayName", .string(name))]))
            }
            try await users.child("nameless").setValue(json: .object([JSONMember("age", .int(3))]))
            try await expectEventually("every user's searchKey is stored") {
                let stored = try await rest.get("users")
                return Self.names.keys.allSatisfy { stored[$0]?["searchKey"]?.stringValue != nil }
            }
            try await body(users, rest)
        } catch {
            await app.close()
            await server.stop()
            throw error
        }
        await app.close()
        await server.stop()
    }

    static func keys(_ snapshot: DataSnapshot) -> [String] { snapshot.children.compactMap(\.key) }

    @Test(arguments: Backend.allCases)
    func prefixesFindExactlyTheirNames(backend: Backend) async throws {
        try await withUsers(backend) { users, rest in
            #expect(try await rest.get("users/jozsef1/searchKey") == .string("jozsef"))
            #expect(try await rest.get("users/zoe/searchKey") == .string("zoe"))
            let bySearchKey = users.queryOrdered(byChild: "searchKey")
            // Ordered by key, then by child key on ties (jozsef1 and jozsef2 share "jozsef").
            let expected: [String: [String]] = [
                "Jó": ["joanna", "jorg", "jozsef1", "jozsef2"],
                "jo": ["joanna", "jorg", "jozsef1", "jozsef2"],
                "JOZ": ["jozsef1", "jozsef2"],
                "józsef": ["jozsef1", "jozsef2"],
                "JÖR": ["jorg"],
                "zoe": ["zoe"],
                "ZOË": ["zoe"],
                "": ["joanna", "jorg", "jozsef1", "jozsef2", "zoe"],
                "x": [],
                "joz ": ["jozsef1", "jozsef2"],
                "jozsefa": [],
            ]
            for (prefix, keys) in expected {
                let snapshot = try await bySearchKey.queryStarting(withPrefix: prefix).getSnapshot()
                #expect(Self.keys(snapshot) == keys, "prefix \"\(prefix)\"")
            }
            // A limit after the prefix takes the first matches in key order.
            let firstTwo = try await bySearchKey.queryStarting(withPrefix: "jo").queryLimited(toFirst: 2).getSnapshot()
            #expect(Self.keys(firstTwo) == ["joanna", "jorg"])
            let lastOne = try await bySearchKey.queryStarting(withPrefix: "jo").queryLimited(toLast: 1).getSnapshot()
            #expect(Self.keys(lastOne) == ["jozsef2"])
            // The same range over REST (what the SDK sends): the server's index agrees.
            let range = SearchKey.prefixRange("Jó")
            let viaREST = try await rest.get(
                "users", query: ["orderBy": #""searchKey""#, "startAt": Self.quoted(range.start), "endAt": Self.quoted(range.end)])
            guard case .object(let members) = viaREST else {
                Issue.record("REST answered \(viaREST)")
                return
            }
            #expect(Set(members.map(\.key)) == ["joanna", "jorg", "jozsef1", "jozsef2"])
        }
    }

    @Test(arguments: Backend.allCases)
    func liveResultsFollowNewAndRenamedUsers(backend: Backend) async throws {
        try await withUsers(backend) { users, _ in
            let seen = Latest()
            let query = users.queryOrdered(byChild: "searchKey").queryStarting(withPrefix: "jo")
            let handle = query.observe(.value) { seen.set(Self.keys($0)) }
            defer { query.removeObserver(withHandle: handle) }
            await expectEventually("the first result") { seen.value == ["joanna", "jorg", "jozsef1", "jozsef2"] }

            // A new name that matches appears once the trigger stored its key; one that does not never does.
            try await users.child("jolan").setValue(json: .object([JSONMember("displayName", .string("Jolán Kiss"))]))
            try await users.child("zsofia").setValue(json: .object([JSONMember("displayName", .string("Zsófia"))]))
            await expectEventually("Jolán appears") { seen.value == ["joanna", "jolan", "jorg", "jozsef1", "jozsef2"] }
            // A rename out of the range leaves it; one into it enters.
            try await users.child("joanna/displayName").setValue(json: .string("Anna"))
            try await users.child("zoe/displayName").setValue(json: .string("Jó Zoë"))
            await expectEventually("renames move users") { seen.value == ["zoe", "jolan", "jorg", "jozsef1", "jozsef2"] }
            #expect(try await users.child("zoe/searchKey").getSnapshot().value == .string("jo zoe"))
            let zs = try await users.queryOrdered(byChild: "searchKey").queryStarting(withPrefix: "zs").getSnapshot()
            #expect(Self.keys(zs) == ["zsofia"])
        }
    }

    static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).jsonBytes, as: UTF8.self)
    }

    /// The latest keys an observer saw.
    final class Latest: Sendable {
        private let keys = Mutex<[String]?>(nil)
        var value: [String]? { keys.withLock { $0 } }
        func set(_ value: [String]) { keys.withLock { $0 = value } }
    }
}

extension AdminREST {
    /// GET with query parameters (values as written; percent-encoded here).
    func get(_ path: String, query: [String: String]) async throws -> JSONValue {
        let encoded = query.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }
        let url = URL(string: "http://127.0.0.1:\(port)/\(path).json?" + encoded.joined(separator: "&"))!
        var request = URLRequest(url: url)
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONValue.parse(Array(data))
    }
}
