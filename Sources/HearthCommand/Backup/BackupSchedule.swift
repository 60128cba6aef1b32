import Foundation
import HearthCore
import Logging
import ServiceLifecycle

/// `serve --backup-every 1h --backup-keep 48 [--backup-dir DIR]` (config `"backup": {"every": "1h", "keep": 48, "dir": "…"}`,
/// environment `HEARTH_BACKUP_EVERY`, `HEARTH_BACKUP_KEEP`, `HEARTH_BACKUP_DIR`).
struct BackupScheduleSettings {
    /// Time between backups (`90s`, `30m`, `1h`, `1d`); nil = no scheduled backups.
    var every: String?
    /// How many newest complete backups to keep.
    var keep = 48
    /// The backups folder; nil = `<data>/backups`.
    var dir: String?
    /// `--write-log` / `--no-write-log` (config `backup.writeLog`, `HEARTH_WRITE_LOG`); nil = on exactly when
    /// scheduled backups are.
    var writeLog: Bool?
    /// Bytes per second a backup reads at most (`64M`; `0` = no limit); nil = ``BackupPace/defaultRate``.
    var maxRate: String?

    /// The pace `maxRate` describes; throws on a malformed value.
    func checkedPace() throws -> BackupPace {
        var pace = BackupPace()
        if let maxRate {
            do { pace.bytesPerSecond = try BackupPace.rate(maxRate) } catch { throw Settings.Failure(description: "backup max rate: \(error)") }
        }
        return pace
    }

    /// Whether the realtime databases keep a write log for point-in-time restores.
    var keepsWriteLog: Bool { writeLog ?? (every != nil) }

    /// Applies the config file's `backup` object.
    mutating func apply(_ members: [JSONMember], file path: String) throws {
        for m in members {
            switch (m.key, m.value) {
            case ("every", .string(let v)): every = v
            case ("keep", .int(let v)): keep = Int(clamping: v)
            case ("dir", .string(let v)): dir = v
            case ("writeLog", .bool(let v)): writeLog = v
            case ("maxRate", .string(let v)): maxRate = v
            case ("maxRate", .int(let v)): maxRate = String(v)
            default: throw Settings.Failure(description: "config file \(path): unknown or mistyped setting \"backup.\(m.key)\"")
            }
        }
    }

    /// Applies `HEARTH_BACKUP_EVERY`, `HEARTH_BACKUP_KEEP` and `HEARTH_BACKUP_DIR`.
    mutating func apply(environment env: [String: String]) throws {
        if let v = env["HEARTH_BACKUP_EVERY"], !v.isEmpty { every = v }
        if let v = env["HEARTH_BACKUP_KEEP"] {
            guard let n = Int(v) else { throw Settings.Failure(description: "HEARTH_BACKUP_KEEP must be a number") }
            keep = n
        }
        if let v = env["HEARTH_BACKUP_DIR"], !v.isEmpty { dir = v }
        if let v = env["HEARTH_BACKUP_MAX_RATE"], !v.isEmpty { maxRate = v }
        if let v = env["HEARTH_WRITE_LOG"], !v.isEmpty {
            switch v.lowercased() {
            case "1", "true", "on", "yes": writeLog = true
            case "0", "false", "off", "no": writeLog = false
            default: throw Settings.Failure(description: "HEARTH_WRITE_LOG must be true or false (got \(v))")
            }
        }
    }

    /// The interval in seconds, nil when off; throws on a malformed value, an interval under 1 second or a keep under 1.
    func checkedInterval() throws -> Int? {
        guard let every else { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = every.last.flatMap({ units[$0] }), let n = Int(every.dropLast()), n > 0 else {
            throw Settings.Failure(description: "--backup-every must be a number and a unit: 90s, 30m, 1h, 1d (got \(every))")
        }
        guard keep >= 1 else { throw Settings.Failure(description: "--backup-keep must be at least 1") }
        _ = try checkedPace()
        return n * unit
    }
}

/// The service that backs up the data folder every interval while `serve` runs, then prunes to the newest
/// `keep` backups. A failed backup is logged and tried again at the next tick; the server keeps serving.
struct BackupSchedule: Service {
    /// The data folder.
    let data: String
    /// Where backups go.
    let repository: BackupRepository
    /// Seconds between backups.
    let seconds: Int
    /// Newest complete backups kept.
    let keep: Int
    /// How fast each backup reads.
    let pace: BackupPace
    /// Where results go.
    let logger: Logger

    /// The schedule `settings` describe for `folder`, or nil when scheduled backups are off.
    init?(_ settings: BackupScheduleSettings, folder: String, logger: Logger) throws {
        guard let seconds = try settings.checkedInterval() else { return nil }
        data = folder
        repository = BackupRepository(root: settings.dir ?? folder + "/backups")
        self.seconds = seconds
        keep = settings.keep
        pace = try settings.checkedPace()
        self.logger = logger
    }

    /// Waits an interval, backs up, prunes; until the service group is cancelled (shutdown).
    func run() async throws {
        logger.info("backups every \(seconds) s, keeping \(keep)", metadata: ["hearth.backup.dir": "\(repository.root)"])
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(seconds)) }
            } catch {
                return
            }
            await once()
        }
    }

    /// One backup and prune, on a thread of its own (it reads and writes files for as long as it takes).
    func once() async {
        let (data, repository, keep, pace) = (data, repository, keep, pace)
        // The write logs are pruned after the backups; a failure there is logged on its own (the backup was made).
        typealias Done = (summary: BackupMaker.Summary, removed: [String], pruned: Result<[String: Int], any Error>)
        let outcome: Result<Done, any Error>
        do {
            outcome = .success(try await pace.run {
                let summary = try BackupMaker(data: data, repository: repository, pace: pace).make()
                let removed = try repository.prune(keep: keep)
                return (summary, removed, Result { try repository.pruneWriteLogs(data: data) })
            })
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let (summary, removed, pruned)):
            logger.info("backup made", metadata: [
                "hearth.backup.id": "\(summary.manifest.id)", "hearth.backup.files": "\(summary.manifest.files.count)",
                "hearth.backup.new_bytes": "\(summary.newBytes)", "hearth.backup.seconds": "\(String(format: "%.2f", summary.seconds))",
                "hearth.backup.removed": "\(removed.joined(separator: ","))",
                "hearth.backup.write_log_pruned": "\((try? pruned.get())?.values.reduce(0, +) ?? 0)",
            ])
            if case .failure(let error) = pruned {
                logger.error("pruning the write log failed", metadata: ["hearth.backup.error": "\(error)"])
            }
        case .failure(let error):
            logger.error("scheduled backup failed", metadata: ["hearth.backup.error": "\(error)"])
        }
    }
}
