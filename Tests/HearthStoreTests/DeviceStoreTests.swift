import Foundation
import HearthPostgres
import HearthSQLite
import HearthStore
import Testing

/// One suite for every DeviceStore backend (PostgreSQL when `HEARTH_TEST_POSTGRES` is set): registering,
/// a device changing hands, topics and their paging, removal.
@Suite("Devices: store conformance")
struct DeviceStoreTests {
    static func make(_ backend: Backend) async throws -> any DeviceStore {
        switch backend {
        case .memory: return MemoryDeviceStore()
        case .sqlite: return try SQLiteDeviceStore(path: Backend.temporaryFolder() + "/devices.sqlite", durable: false)
        case .postgres: return PostgresDeviceStore(server: try await PostgresTestServer.server(), project: PostgresTestServer.freshNamespace())
        }
    }

    @Test(arguments: Backend.allCases)
    func registersReplacesAndListsAUsersDevices(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        let phone = DeviceRegistration(token: "apns-phone", uid: "ada", service: .apns, updated: 1_000)
        let tablet = DeviceRegistration(token: "fcm-tablet", uid: "ada", service: .fcm, updated: 2_000)
        try await store.register(phone)
        try await store.register(tablet)
        try await store.register(DeviceRegistration(token: "apns-bob", uid: "bob", service: .apns, sandbox: true, updated: 1_500))
        #expect(try await store.device(token: "apns-phone") == phone)
        #expect(try await store.device(token: "nope") == nil)
        #expect(try await store.devices(uid: "ada") == [tablet, phone])
        #expect(try await store.devices(uid: "bob").map(\.sandbox) == [true])
        #expect(try await store.devices(uid: "nobody").isEmpty)
        // Registered again by the same user: updated, topics kept.
        #expect(try await store.setTopic("news", subscribed: true, token: "apns-phone"))
        try await store.register(DeviceRegistration(token: "apns-phone", uid: "ada", service: .apns, updated: 3_000))
        #expect(try await store.device(token: "apns-phone")?.topics == ["news"])
        #expect(try await store.devices(uid: "ada").map(\.token) == ["apns-phone", "fcm-tablet"])
        // Bob signs in on Ada's phone: it is his now, without her topics.
        try await store.register(DeviceRegistration(token: "apns-phone", uid: "bob", service: .apns, updated: 4_000))
        let moved = try #require(try await store.device(token: "apns-phone"))
        #expect(moved.uid == "bob" && moved.topics.isEmpty && moved.updated == 4_000)
        #expect(try await store.devices(uid: "ada").map(\.token) == ["fcm-tablet"])
        #expect(try await store.devices(topic: "news", after: nil, limit: 10).isEmpty)
        try await store.close()
    }

    @Test(arguments: Backend.allCases)
    func topicSubscribersArePagedInTokenOrder(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        let tokens = (0..<25).map { String(format: "tok-%02d", $0) }.shuffled()
        for (i, token) in tokens.enumerated() {
            try await store.register(DeviceRegistration(token: token, uid: "u\(i % 5)", service: i % 2 == 0 ? .apns : .fcm, updated: Int64(i)))
            #expect(try await store.setTopic("berlin", subscribed: true, token: token))
            if i % 3 == 0 { #expect(try await store.setTopic("deals", subscribed: true, token: token)) }
        }
        // Subscribing twice is one subscription; an unknown token subscribes nothing.
        #expect(try await store.setTopic("berlin", subscribed: true, token: tokens[0]))
        #expect(try await store.setTopic("berlin", subscribed: true, token: "unknown") == false)
        var seen: [String] = []
        var after: String?
        while true {
            let page = try await store.devices(topic: "berlin", after: after, limit: 10)
            if page.isEmpty { break }
            #expect(page.count <= 10)
            seen += page.map(\.token)
            after = page.last?.token
        }
        #expect(seen == tokens.sorted())
        let deals = try await store.devices(topic: "deals", after: nil, limit: 100)
        #expect(deals.count == 9)
        #expect(deals.allSatisfy { $0.topics == ["berlin", "deals"] })
        #expect(try await store.setTopic("berlin", subscribed: false, token: "tok-03"))
        #expect(try await store.devices(topic: "berlin", after: nil, limit: 100).count == 24)
        #expect(try await store.device(token: "tok-03")?.topics.contains("berlin") == false)
        try await store.close()
    }

    @Test(arguments: Backend.allCases)
    func removingADeviceOrAUsersDevices(_ backend: Backend) async throws {
        let store = try await Self.make(backend)
        for (token, uid) in [("a1", "ada"), ("a2", "ada"), ("b1", "bob")] {
            try await store.register(DeviceRegistration(token: token, uid: uid, service: .apns, updated: 1))
            _ = try await store.setTopic("all", subscribed: true, token: token)
        }
        #expect(try await store.remove(token: "a1"))
        #expect(try await store.remove(token: "a1") == false)
        #expect(try await store.devices(topic: "all", after: nil, limit: 10).map(\.token) == ["a2", "b1"])
        #expect(try await store.removeDevices(uid: "ada") == 1)
        #expect(try await store.removeDevices(uid: "ada") == 0)
        #expect(try await store.devices(topic: "all", after: nil, limit: 10).map(\.token) == ["b1"])
        #expect(try await store.devices(uid: "bob").count == 1)
        try await store.close()
    }
}
