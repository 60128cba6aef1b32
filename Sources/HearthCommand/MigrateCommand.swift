import ArgumentParser
import Foundation
import HearthAuth
import HearthPostgres
import HearthSQLite
import HearthStore
import Logging

/// `hearth migrate --from <data folder> --to postgres://…`: copies a SQLite deployment into PostgreSQL, then
/// checks that both sides hold the same data.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a data folder's SQLite databases into PostgreSQL for `hearth serve --postgres`, then verify the copy.",
        discussion: """
            Stop the server first: the copy reads the databases as they are while it runs, and a write made \
            meanwhile may be missed. Afterwards start `hearth serve --postgres URL --data <same folder>`: the \
            signing keys, the storage rules and the uploaded files stay in the data folder.

            Copied: every namespace (tree with priorities, settings such as the rules and schedule ticks, .indexOn indexes, sequence \
            number, live and dead outbox events), accounts with their provider identities, one-time codes, buckets, \
            object records, short links and their daily counts. Not copied (the store protocols cannot list them): \
            refresh tokens (users sign in again), claimed idempotency keys, unfinished resumable uploads.
            """)

    @Option(help: "The data folder of `hearth serve` (its SQLite databases).") var from: String
    @Option(help: "The PostgreSQL database, e.g. postgres://hearth:secret@db:5432/hearth.") var to: String
    @Option(help: "Project id (default from the folder's hearth.json, then HEARTH_PROJECT, else demo).") var project: String?
    @Flag(help: "Only count what would be copied.") var dryRun = false
    @Flag(help: "Copy even when PostgreSQL already holds data for this project or these namespaces: those namespaces and the project's accounts are replaced, object records overwritten, links already there kept (their counts are not added again).")
    var force = false
    @Flag(help: "Copy nothing; only compare the data folder with PostgreSQL.") var verifyOnly = false

    func run() async throws {
        let folder = URL(fileURLWithPath: from).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: folder) else { throw fail("there is no data folder at \(folder)", .badConfiguration) }
        let project = try resolvedProject(folder: folder)
        try checkProjectFiles(folder: folder, project: project)
        let source = MigrationSource(folder: folder, project: project)
        let namespaces: [String]
        do { namespaces = try source.factory.existingNamespaces().sorted() } catch { throw fail("cannot list the databases in \(folder): \(error)", .corruptDatabase) }

        let progress = MigrationProgress()
        if dryRun {
            let counts = try await source.counts(namespaces: namespaces)
            progress.finish()
            print(counts.report(namespaces: namespaces))
            return
        }
        let location: PostgresLocation
        do { location = try PostgresLocation(url: to) } catch { throw fail("--to: \(error)", .badConfiguration) }
        var logger = Logger(label: "hearth", factory: { LineLogHandler(label: $0) })
        logger.logLevel = .warning
        let server: PostgresServer
        do { server = try await PostgresServer(location: location, connections: 4, logger: logger) } catch {
            throw fail("cannot use PostgreSQL at \(location): \(error)", .corruptDatabase)
        }
        let target = MigrationTarget(server: server, project: project)
        let checks: [MigrationVerifier.Check]
        do {
            if !verifyOnly {
                let held = try await target.heldData(namespaces: namespaces)
                if !held.isEmpty && !force {
                    throw fail("\(location) already holds \(held.joined(separator: ", ")); pass --force to replace it", .badConfiguration)
                }
                let copy = MigrationCopy(source: source, target: target, progress: progress, force: force)
                try await copy.run(namespaces: namespaces)
                progress.finish()
            }
            checks = try await MigrationVerifier(source: source, target: target).checks(namespaces: namespaces)
        } catch {
            progress.finish()
            try? await target.close()
            try? await server.shutdown()
            throw error as? ExitCode ?? fail("migration failed: \(error)", .failure)
        }
        try? await target.close()
        try? await server.shutdown()
        print(MigrationVerifier.table(checks))
        if !verifyOnly { print("Refresh tokens are not copied: users sign in again after the move.") }
        let failed = checks.filter { !$0.matches }
        if !failed.isEmpty { throw fail("\(failed.count) of \(checks.count) checks differ", .failure) }
    }

    /// Refuses a project that has no accounts, files or links in the folder while another project has some: a
    /// forgotten `--project` would otherwise copy the namespaces and silently leave the accounts behind.
    private func checkProjectFiles(folder: String, project: String) throws {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let kinds = [".auth.sqlite", ".storage.sqlite", ".links.sqlite"]
        guard !kinds.contains(where: { files.contains(project + $0) }) else { return }
        let others = Set(files.compactMap { file in kinds.first(where: file.hasSuffix).map { String(file.dropLast($0.count)) } }).sorted()
        if !others.isEmpty {
            throw fail("\(folder) has no accounts, files or links for project \(project), only for \(others.joined(separator: ", ")): pass --project", .badConfiguration)
        }
    }

    /// The project as `hearth serve` would pick it for this folder (its hearth.json, then the environment).
    private func resolvedProject(folder: String) throws -> String {
        if let project { return project }
        var settings = Settings()
        do {
            if FileManager.default.fileExists(atPath: folder + "/hearth.json") { try settings.apply(file: folder + "/hearth.json") }
            try settings.apply(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw fail("\(error)", .badConfiguration)
        }
        return settings.project
    }
}
