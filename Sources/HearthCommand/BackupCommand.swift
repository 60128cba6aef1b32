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

        func run() async throws {
            let data = location.folder
            guard FileManager.default.fileExists(atPath: data) else { throw fail("no data folder at \(data)", .badConfiguration) }
            let repository = location.repository(to)
            do {
                let summary = try BackupMaker(data: data, repository: repository).make()
                let m = summary.manifest
                print("backup \(m.id): \(m.files.count) files, \(Self.bytes(m.totalSize)) (\(Self.bytes(summary.newBytes)) new) in \(String(format: "%.1f", summary.seconds)) s, in \(repository.root)")
                if let keep {
                    for id in try repository.prune(keep: keep) { print("removed backup \(id)") }
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

        func run() async throws {
            let repository = location.repository()
            let target = URL(fileURLWithPath: to).standardizedFileURL.path
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

extension ExitCode {
    /// `hearth backup verify|restore`: a backup file is missing or corrupt, or the backup is incomplete.
    static let backupDamaged = ExitCode(8)
}

/// Prints `error` (an `ExitCode` passes through) and returns `code`.
private func fail(_ error: any Error, code: ExitCode) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    return fail("\(error)", code)
}
