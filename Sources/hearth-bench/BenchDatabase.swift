import Foundation

/// A fresh PostgreSQL database for one bench run (`--postgres`), created with Debian's `psql` on the server the
/// given URL names and dropped when the run ends, so every run starts as empty as the SQLite one does.
struct BenchDatabase {
    /// The server URL as given (its database is where `CREATE DATABASE` runs).
    let serverURL: String
    let name: String
    /// The new database's URL, for `hearth serve --postgres`.
    let url: String

    init(serverURL: String, scratch: String) throws {
        guard var parts = URLComponents(string: serverURL), parts.scheme == "postgres" || parts.scheme == "postgresql" else {
            throw BenchError("--postgres takes a postgres:// URL, got \(serverURL)")
        }
        self.serverURL = serverURL
        name = "hearth_bench_\(getpid())_\(Int(Date().timeIntervalSince1970))"
        parts.path = "/" + name
        guard let url = parts.string else { throw BenchError("cannot make a database URL from \(serverURL)") }
        self.url = url
        try psql("CREATE DATABASE \(name)", scratch: scratch)
    }

    /// Drops the run's database (its nodes are stopped by then; the scratch folder may be gone already).
    func drop() {
        do {
            try psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", scratch: NSTemporaryDirectory())
        } catch {
            log("could not drop the bench database \(name): \(error)")
        }
    }

    private func psql(_ statement: String, scratch: String) throws {
        let psql = findOnPath("psql") ?? "/usr/bin/psql"
        let (output, status) = try Subprocess.run(psql, ["-q", serverURL, "-c", statement], timeout: 60, scratch: scratch)
        guard status == 0 else { throw BenchError("psql \(statement): \(output)") }
    }
}
