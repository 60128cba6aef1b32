import Foundation
import HearthPostgres
import Logging
import Testing

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

    /// Ends every change feed's listening connection on the server (as a network failure would), with
    /// Debian's `psql`; returns how many it ended.
    static func terminateListeners() async throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [
            try #require(url), "-tAc",
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
