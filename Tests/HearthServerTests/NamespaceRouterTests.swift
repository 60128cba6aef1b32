import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// Namespaces over REST outside `--dev`: only the default one and admin-created ones exist.
@Suite("Namespaces over HTTP")
struct NamespaceRouterTests {
    static let notFound = #"{"error":"Firebase error. Please ensure that you spelled the name of your Firebase correctly"}"#

    func withClient(
        dev: Bool = false, stores: any StoreFactory = MemoryStoreFactory(), _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let server = HearthServer(
            configuration: ServerConfiguration(port: 0, adminToken: "owner", dev: dev), stores: stores,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.application().test(.router) { client in try await body(client) }
        await server.shutdown()
    }

    @Test("an unknown namespace is 404 with Firebase's body for reads, writes, streams and settings, and nothing is opened")
    func unknownNamespace() async throws {
        let stores = CountingStoreFactory()
        try await withClient(stores: stores) { c in
            for (method, uri, body, headers) in [
                (HTTPRequest.Method.get, "/x.json?ns=nope", nil, [:]), (.get, "/x.json?ns=nope", nil, admin), (.put, "/x.json?ns=nope", "1", admin),
                (.patch, "/.json?ns=nope", #"{"a":1}"#, admin), (.get, "/.settings/rules.json?ns=nope", nil, admin),
            ] as [(HTTPRequest.Method, String, String?, HTTPFields)] {
                let (status, text, _) = try await c.send(method, uri, body, headers: headers)
                #expect(status == .notFound, "\(method) \(uri)")
                #expect(text == Self.notFound, "\(method) \(uri)")
            }
            let stream = try await c.send(.get, "/x.json?ns=nope", headers: [.accept: "text/event-stream"])
            #expect(stream.0 == .notFound)
            #expect(stream.1 == Self.notFound)
            // Settings are for the admin, who alone learns whether a namespace exists.
            #expect(try await c.send(.get, "/.settings/rules.json?ns=nope", headers: [:]).0 == .unauthorized)
        }
        #expect(stores.opens.withLock { $0 } == [])
    }

    @Test("the admin creates, lists and deletes namespaces; a new one starts locked unless given rules")
    func adminManagesNamespaces() async throws {
        try await withClient { c in
            #expect(try await c.send(.put, "/.settings/namespaces/orders.json", headers: [:]).0 == .unauthorized)
            #expect(try await c.send(.put, "/.settings/namespaces/orders.json", headers: [.authorization: "Bearer nope"]).0 == .unauthorized)
            let made = try await c.send(.put, "/.settings/namespaces/orders.json")
            #expect(made.0 == .ok)
            #expect(made.1 == #"{"name":"orders","status":"created"}"#)
            #expect(try await c.send(.put, "/.settings/namespaces/orders.json").0 == .conflict)
            // Locked: nobody but the admin reads or writes.
            #expect(try await c.send(.put, "/a.json?ns=orders", "1", headers: [:]).0 == .unauthorized)
            #expect(try await c.send(.get, "/a.json?ns=orders", headers: [:]).0 == .unauthorized)
            #expect(try await c.send(.put, "/a.json?ns=orders", "1").0 == .ok)
            #expect(try await c.send(.get, "/.settings/rules.json?ns=orders&format=strict").1.contains(#"".read" : false"#))
            // With rules given at creation.
            let open = #"{"rules": {".read": true, ".write": "auth != null"}} // public reads"#
            #expect(try await c.send(.put, "/.settings/namespaces/pub.json", open).0 == .ok)
            #expect(try await c.send(.get, "/a.json?ns=pub", headers: [:]).0 == .ok)
            #expect(try await c.send(.get, "/.settings/rules.json?ns=pub").1 == open)
            #expect(try await c.send(.put, "/.settings/namespaces/bad.json", #"{"rules": {".read": "nope("}}"#).0 == .badRequest)
            #expect(try await c.send(.put, "/.settings/namespaces/bad%20name.json").0 == .badRequest)
            #expect(try await c.send(.get, "/.settings/namespaces.json").1 == #"["demo","orders","pub"]"#)
            #expect(try await c.send(.get, "/.settings/namespaces/pub.json").1 == #"{"name":"pub"}"#)
            #expect(try await c.send(.get, "/.inspect/databases.json").1 == #"[{"name":"demo"},{"name":"orders"},{"name":"pub"}]"#)
            #expect(try await c.send(.delete, "/.settings/namespaces/pub.json", headers: [:]).0 == .unauthorized)
            #expect(try await c.send(.delete, "/.settings/namespaces/pub.json").0 == .ok)
            #expect(try await c.send(.get, "/a.json?ns=pub").0 == .notFound)
            #expect(try await c.send(.get, "/.settings/namespaces/pub.json").0 == .notFound)
            #expect(try await c.send(.delete, "/.settings/namespaces/pub.json").0 == .notFound)
            #expect(try await c.send(.delete, "/.settings/namespaces/demo.json").0 == .badRequest)
            // Created again, it starts empty.
            #expect(try await c.send(.put, "/.settings/namespaces/pub.json").0 == .ok)
            #expect(try await c.send(.get, "/a.json?ns=pub").1 == "null")
            // The default namespace needs no creating and keeps its documented start (signed-in users).
            #expect(try await c.send(.get, "/a.json", headers: [:]).0 == .unauthorized)
            #expect(try await c.send(.get, "/a.json").0 == .ok)
        }
    }

    @Test("--dev creates namespaces on first use with open rules, as the emulator")
    func devCreatesOnFirstUse() async throws {
        try await withClient(dev: true) { c in
            let put = try await c.send(.put, "/x.json?ns=anything", "1", headers: [:])
            #expect(put.0 == .ok)
            let get = try await c.send(.get, "/x.json?ns=anything", headers: [:])
            #expect(get.1 == "1")
        }
    }
}
