import Foundation
import HearthPostgres
import Logging

/// The PostgreSQL server of `HEARTH_TEST_POSTGRES`, connected once for the whole test run; each test uses a
/// project of its own (`t_<random>`), so tests never see each other's rows.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    private static let connecting = Task<PostgresServer, any Error> {
        guard let url else { throw PostgresLocationError(message: "HEARTH_TEST_POSTGRES is not set") }
        return try await PostgresServer(location: PostgresLocation(url: url), connections: 8, logger: Logger(label: "test.postgres"))
    }

    static func server() async throws -> PostgresServer { try await connecting.value }

    static func freshProject() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }
}
