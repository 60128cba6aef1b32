import Foundation
import HearthCore
import HearthPostgres
import HearthSQLite
import HearthStore
import Logging

/// Every storage backend the conformance suite runs against: memory and SQLite always, PostgreSQL
/// when `HEARTH_TEST_POSTGRES` names a server (`.ci/run` starts one and sets it).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    static var allCases: [Backend] { PostgresTestServer.url == nil ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }

    var testDescription: String { rawValue }

    func makeStore(folder: String? = nil) async throws -> any DatabaseStore {
        switch self {
        case .memory: return MemoryStore()
        case .sqlite:
            let dir = folder ?? Backend.temporaryFolder()
            return try SQLiteStore(path: dir + "/test.sqlite", durability: .normal)
        case .postgres:
            return try await PostgresTestServer.factory().open(namespace: PostgresTestServer.freshNamespace())
        }
    }

    static func temporaryFolder() -> String {
        let dir = NSTemporaryDirectory() + "hearth-store-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// The PostgreSQL server of `HEARTH_TEST_POSTGRES`, connected once for the whole test run. Each
/// test store is a namespace of its own (`t_<random>`), so tests never see each other's rows.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    private static let connecting = Task<PostgresServer, any Error> {
        guard let url else { throw PostgresLocationError(message: "HEARTH_TEST_POSTGRES is not set") }
        return try await PostgresServer(location: PostgresLocation(url: url), connections: 8, logger: Logger(label: "test.postgres"))
    }

    static func server() async throws -> PostgresServer { try await connecting.value }

    static func factory() async throws -> PostgresStoreFactory { PostgresStoreFactory(server: try await server()) }

    /// Another node: a server of its own (connections and threads) on the same database. The caller shuts it down.
    static func anotherNode() async throws -> PostgresServer {
        guard let url else { throw PostgresLocationError(message: "HEARTH_TEST_POSTGRES is not set") }
        return try await PostgresServer(location: PostgresLocation(url: url), connections: 8, logger: Logger(label: "test.postgres.node"))
    }

    static func freshNamespace() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }
}

import Testing

func json(_ text: String) -> Node {
    try! Node(json: JSONValue.parse(text))
}

extension DatabaseStore {
    func put(_ path: String, _ text: String) async throws {
        let node = json(text)
        try await write { try $0.set(Path(path), node) }
    }

    func get(_ path: String) async throws -> Node {
        try await snapshot { try $0.read(Path(path)) }
    }

    func getJSON(_ path: String, format: RenderFormat = .plain) async throws -> String {
        try await get(path).jsonString(format: format)
    }
}
