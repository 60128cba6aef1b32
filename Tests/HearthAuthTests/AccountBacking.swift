import Foundation
import HearthPostgres
import HearthSQLite
import HearthStore
import Logging
import Testing

/// The account stores the auth suites run against: memory and SQLite always, PostgreSQL when
/// `HEARTH_TEST_POSTGRES` names a server.
enum AccountBacking: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite, postgres

    static var allCases: [AccountBacking] { PostgresTestServer.url == nil ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }

    /// The backings whose accounts outlive the store object.
    static var durable: [AccountBacking] { allCases.filter { $0 != .memory } }

    var testDescription: String { rawValue }

    /// A store for `folder`: SQLite's file in it, or the PostgreSQL project named after it, so opening the same
    /// folder again reads what was written (memory: always a new, empty store).
    func store(at folder: URL) async throws -> any AccountStore {
        switch self {
        case .memory: MemoryAccountStore()
        case .sqlite: try SQLiteAccountStore(path: folder.appendingPathComponent("accounts.sqlite").path)
        case .postgres: PostgresAccountStore(server: try await PostgresTestServer.server(), project: "t_" + folder.lastPathComponent)
        }
    }

    /// Where the auth service counts sign-in attempts: the PostgreSQL project of `folder` (as `store(at:)`), or
    /// memory, as a single SQLite node does.
    func attempts(at folder: URL) async throws -> any AttemptStore {
        switch self {
        case .memory, .sqlite: MemoryAttemptStore()
        case .postgres: PostgresAttemptStore(server: try await PostgresTestServer.server(), project: "t_" + folder.lastPathComponent)
        }
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The PostgreSQL server of `HEARTH_TEST_POSTGRES`, connected once for the whole test run; each test uses a
/// project of its own, so tests never see each other's rows.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    private static let connecting = Task<PostgresServer, any Error> {
        guard let url else { throw PostgresLocationError(message: "HEARTH_TEST_POSTGRES is not set") }
        return try await PostgresServer(location: PostgresLocation(url: url), connections: 8, logger: Logger(label: "test.postgres"))
    }

    static func server() async throws -> PostgresServer { try await connecting.value }

    /// Another node: a server of its own (connections and threads) on the same database. The caller shuts it down.
    static func anotherNode() async throws -> PostgresServer {
        guard let url else { throw PostgresLocationError(message: "HEARTH_TEST_POSTGRES is not set") }
        return try await PostgresServer(location: PostgresLocation(url: url), connections: 8, logger: Logger(label: "test.postgres.node"))
    }

    static func freshProject() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }
}
