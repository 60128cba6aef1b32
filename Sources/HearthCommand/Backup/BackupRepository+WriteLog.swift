import Foundation
import HearthSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BackupRepository {
    /// Retention of the write logs: deletes from each live namespace database of `data` the log rows the
    /// oldest kept backup no longer needs (sequence at most its snapshot's), in small batches. Nothing is
    /// deleted when the oldest complete backup has no sequence numbers (made by an older hearth).
    /// Returns the rows deleted per file.
    func pruneWriteLogs(data: String) throws -> [String: Int] {
        guard let oldest = try list().lazy.compactMap(\.manifest).first else { return [:] }
        var removed: [String: Int] = [:]
        for entry in oldest.files where entry.isNamespace {
            guard let sequence = entry.sequence else { return removed }
            let file = data + "/" + entry.path
            guard FileManager.default.fileExists(atPath: file) else { continue }
            let n = try WriteLog.prune(file: file, upTo: sequence)
            if n > 0 { removed[entry.path] = n }
        }
        return removed
    }

    /// The point-in-time window in words: from the oldest backup with sequence numbers to the newest
    /// backup's point, or to about now when the live folder's write log continues from it with no gap.
    func windowText(data: String) throws -> String {
        let restore = PointInTimeRestore(repository: self, data: data, at: 0)
        let bases = try restore.bases()
        guard let first = bases.first, let last = bases.last else {
            return "point-in-time window: none (no backup with sequence numbers yet)"
        }
        var latest = "\(PointInTimeRestore.text(PointInTimeRestore.point(last))) (backup \(last.id))"
        var live = true
        for entry in last.files where entry.isNamespace {
            let file = data + "/" + entry.path
            guard let sequence = entry.sequence, FileManager.default.fileExists(atPath: file),
                  let info = try? WriteLog.info(ofLiveFile: file, after: sequence), WriteLog.isComplete(info, after: sequence)
            else {
                live = false
                break
            }
        }
        if live { latest = "about now (the live write log continues the newest backup)" }
        return "point-in-time window: from \(PointInTimeRestore.text(PointInTimeRestore.point(first))) (backup \(first.id)) to \(latest)"
    }

    /// Runs `body` holding `<backups>/lock` shared: waits for a backup or prune in progress (they hold it
    /// exclusively) to finish, and keeps them from removing what `body` reads. Used by `restore --at`.
    func whileReading<R>(_ body: () async throws -> R) async throws -> R {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let fd = open(root + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(root)/lock: errno \(errno)") }
        defer { close(fd) }
        guard flock(fd, LOCK_SH) == 0 else { throw Failure(description: "cannot lock \(root)/lock: errno \(errno)") }
        return try await body()
    }
}
