import ArgumentParser
import Foundation

/// `hearth backup create|list|verify|restore`: online backups of a data folder (see docs/operations.md, "Backups").
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up a data folder while the server runs, check backups, restore one into a new folder.",
        discussion: """
            Backups go to <data>/backups unless --to (create) or --backups names another folder; put them on \
            another disk. File contents are stored once, by SHA-256, and shared between backups. Backups hold \
            the signing keys and the admin token: keep the folder as private as the data folder.
            """,
        subcommands: [Create.self, List.self, Verify.self, Restore.self]
    )

    /// The data folder and the backups folder, shared by the subcommands.
    struct Location: ParsableArguments {
        @Option(help: "Data folder (HEARTH_DATA; default ./hearth-data).") var data: String?
        @Option(help: "Backups folder (HEARTH_BACKUP_DIR; default <data>/backups).") var backups: String?

        /// The data folder, absolute.
        var folder: String {
            URL(fileURLWithPath: data ?? ProcessInfo.processInfo.environment["HEARTH_DATA"] ?? "./hearth-data").standardizedFileURL.path
        }

        /// The backups folder, `override` first.
        func repository(_ override: String? = nil) -> BackupRepository {
            BackupRepository(root: override ?? backups ?? ProcessInfo.processInfo.environment["HEARTH_BACKUP_DIR"] ?? folder + "/backups")
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a consistent backup of the whole data folder; the server may keep running and writing.")
        @OptionGroup var location: Location
        @Option(help: "Backups folder (the same as --backups).") var to: String?
        @Option(help: "Afterwards keep only this many newest complete backups (and drop incomplete ones).") var keep: Int?
        @Option(help: "Read at most this many bytes per second: 64M, 1G, or 0 for no limit (default \(BackupPace.defaultRateText)).")
        var maxRate: String?

        func run() async throws {
            let data = location.folder
            guard FileManager.default.fileExists(atPath: data) else { throw fail("no data folder at \(data)", .badConfiguration) }
            let repository = location.repository(to)
            let pace: BackupPace
            do {
                pace = BackupPace(bytesPerSecond: try maxRate.map(BackupPace.rate) ?? BackupPace.defaultRate)
            } catch {
                throw fail("\(error)", .badConfiguration)
            }
            do {
                let summary = try await pace.run { try BackupMaker(data: data, repository: repository, pace: pace).make() }
                let m = summary.manifest
                print("backup \(m.id): \(m.files.count) files, \(Self.bytes(m.totalSize)) (\(Self.bytes(summary.newBytes)) new) in \(String(format: "%.1f", summary.seconds)) s, in \(repository.root)")
                if let keep {
                    for id in try repository.prune(keep: keep) { print("removed backup \(id)") }
                    for (path, n) in try repository.pruneWriteLogs(data: data).sorted(by: { $0.key < $1.key }) {
                        print("pruned \(n) write log entries from \(path)")
                    }
                }
            } catch {
                throw fail("backup failed: \(error)")
            }
        }

        /// `1.2 MB`-style size.
        static func bytes(_ n: Int64) -> String { ByteCountFormatter.string(fromByteCount: n, countStyle: .file) }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the backups, oldest first; incomplete ones (no manifest) are marked.")
        @OptionGroup var location: Location

        func run() async throws {
            let repository = location.repository()
            do {
                for listing in try repository.list() {
                    if let m = listing.manifest {
                        print("\(listing.id)  complete    \(m.files.count) files  \(Create.bytes(m.totalSize))  finished \(m.finished)")
                    } else {
                        print("\(listing.id)  incomplete  (no manifest: the backup never finished)")
                    }
                }
                // Only for backups of realtime databases (a folder without any has no window to show).
                if try !PointInTimeRestore(repository: repository, data: location.folder, at: 0).bases().isEmpty {
                    print(try repository.windowText(data: location.folder))
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute the SHA-256 of every file of a backup (default: every backup) and check its databases; exits 8 if any is damaged or incomplete.")
        @OptionGroup var location: Location
        @Argument(help: "The backup's name (from list); all backups when omitted.") var id: String?

        func run() async throws {
            let repository = location.repository()
            let listings: [BackupRepository.Listing]
            do {
                listings = try repository.list().filter { id == nil || $0.id == id }
            } catch {
                throw fail(error, code: .backupDamaged)
            }
            if let id, listings.isEmpty { throw fail("no backup \(id) in \(repository.root)", .backupDamaged) }
            var bad = false
            for listing in listings {
                guard let manifest = listing.manifest else {
                    print("\(listing.id): incomplete (no manifest)")
                    bad = true
                    continue
                }
                let problems = repository.verify(manifest)
                for problem in problems { print(problem) }
                print("\(listing.id): \(problems.isEmpty ? "ok" : "DAMAGED"), \(manifest.files.count) files checked")
                bad = bad || !problems.isEmpty
            }
            if bad { throw ExitCode.backupDamaged }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore a backup (default: the newest complete one) into a new data folder, checking every file's SHA-256.")
        @OptionGroup var location: Location
        @Argument(help: "The backup's name (from list).") var id: String?
        @Option(help: "The new data folder; it must not exist or be empty.") var to: String
        @Option(help: "Point in time: ISO 8601 UTC (2026-11-29T10:15:30Z) or Unix seconds; replays the realtime databases' write logs up to it.")
        var at: String?

        func run() async throws {
            let repository = location.repository()
            let target = URL(fileURLWithPath: to).standardizedFileURL.path
            if let at {
                try await restore(at: at, repository: repository, target: target)
                return
            }
            do {
                let listings = try repository.list()
                let chosen = id.map { id in listings.first { $0.id == id } } ?? listings.last { $0.manifest != nil }
                guard let chosen else { throw fail("no \(id.map { "backup \($0)" } ?? "complete backup") in \(repository.root)", .badConfiguration) }
                guard let manifest = chosen.manifest else { throw fail("backup \(chosen.id) is incomplete (no manifest)", .backupDamaged) }
                try repository.restore(manifest, to: target)
                print("restored backup \(manifest.id) (\(manifest.files.count) files, \(Create.bytes(manifest.totalSize))) into \(target)")
            } catch {
                throw fail(error, code: .backupDamaged)
            }
        }
    }
}

extension BackupCommand.Restore {
    /// `restore --at`: a base backup, then the write logs replayed up to the point.
    func restore(at text: String, repository: BackupRepository, target: String) async throws {
        guard let millis = PointInTimeRestore.parse(text) else {
            throw fail("--at must be ISO 8601 UTC (2026-11-29T10:15:30Z) or Unix seconds (got \(text))", .badConfiguration)
        }
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: target), !existing.isEmpty {
            throw fail("\(target) is not empty: restore only into a new or empty folder", .backupDamaged)
        }
        let restore = PointInTimeRestore(repository: repository, data: location.folder, at: millis)
        // The folder was new or empty: a failed restore removes it, so no half-restored folder is
        // left behind to be mistaken for a good one.
        do {
            let report = try await repository.whileReading { try await restore.run(to: target, id: id) }
            let changes = report.replayed.reduce(0) { $0 + $1.changes }
            print("restored backup \(report.base.id) into \(target), then replayed \(changes) changes up to \(PointInTimeRestore.text(millis))")
            for r in report.replayed where r.changes > 0 { print("  \(r.path): \(r.changes) changes from \(r.source)") }
        } catch let refusal as PointInTimeRestore.Refusal {
            try? FileManager.default.removeItem(atPath: target)
            let window = (try? repository.windowText(data: location.folder)) ?? ""
            throw fail("point-in-time restore refused: \(refusal.description)\n\(window)", .badConfiguration)
        } catch {
            try? FileManager.default.removeItem(atPath: target)
            throw fail(error, code: .backupDamaged)
        }
    }
}

extension ExitCode {
    /// `hearth backup verify|restore`: a backup file is missing or corrupt, or the backup is incomplete.
    static let backupDamaged = ExitCode(8)
}

/// Prints `error` (an `ExitCode` passes through) and returns `code`.
private func fail(_ error: any Error, code: ExitCode) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    return fail("\(error)", code)
}
