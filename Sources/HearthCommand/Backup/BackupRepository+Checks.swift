import Foundation
import HearthSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BackupRepository {
    /// One damaged file of a backup.
    struct Problem: Sendable, CustomStringConvertible {
        /// The backup it belongs to.
        var backup: String
        /// The file's path in the data folder.
        var path: String
        /// What is wrong (`missing`, `corrupt: …`).
        var what: String

        /// `<backup>: <path> <what>`.
        var description: String { "\(backup): \(path) \(what)" }
    }

    /// Recomputes the hash of every file of `manifest` and checks each database snapshot with SQLite's
    /// `quick_check`; returns what is wrong (empty when the backup is intact).
    func verify(_ manifest: BackupManifest) -> [Problem] {
        var problems: [Problem] = []
        var checked: [String: String?] = [:]
        for entry in manifest.files {
            let result: String?
            if let known = checked[entry.sha256] {
                result = known
            } else {
                result = check(entry)
                checked[entry.sha256] = result
            }
            if let result { problems.append(Problem(backup: manifest.id, path: entry.path, what: result)) }
        }
        return problems
    }

    private func check(_ entry: BackupManifest.Entry) -> String? {
        let file = blob(entry.sha256)
        guard FileManager.default.fileExists(atPath: file) else { return "missing (\(file))" }
        guard let (sha, size) = try? Self.digest(of: file) else { return "unreadable (\(file))" }
        guard sha == entry.sha256, size == entry.size else { return "corrupt: its content no longer has the recorded SHA-256 (\(file))" }
        if entry.kind == "sqlite" {
            do {
                if let problem = try SQLiteSnapshot.problem(at: file) { return "corrupt: SQLite says \(problem) (\(file))" }
            } catch {
                return "corrupt: SQLite cannot open it (\(error)) (\(file))"
            }
        }
        return nil
    }

    /// Writes the files of `manifest` into `target`, which must be missing or an empty folder, checking
    /// each file's hash as it copies; throws naming the first file that is missing or corrupt.
    func restore(_ manifest: BackupManifest, to target: String) throws {
        let fm = FileManager.default
        if let existing = try? fm.contentsOfDirectory(atPath: target), !existing.isEmpty {
            throw Failure(description: "\(target) is not empty: restore only into a new or empty folder")
        }
        try fm.createDirectory(atPath: target, withIntermediateDirectories: true)
        for entry in manifest.files {
            let destination = target + "/" + entry.path
            try fm.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard let (sha, size) = try BackupMaker.copyHashing(from: blob(entry.sha256), to: destination) else {
                throw Failure(description: "\(manifest.id): \(entry.path) is missing from the backups folder (\(blob(entry.sha256)))")
            }
            guard sha == entry.sha256, size == entry.size else {
                throw Failure(description: "\(manifest.id): \(entry.path) is corrupt in the backups folder (\(blob(entry.sha256))); \(target) is incomplete")
            }
            if entry.kind == "file", entry.modified > 0 {
                try? fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: entry.modified)], ofItemAtPath: destination)
            }
        }
        Self.syncFolder(target)
    }

    /// Keeps the newest `keep` complete backups: removes older ones and every incomplete one, then the
    /// stored contents no remaining backup uses. Returns the removed backups' names.
    func prune(keep: Int) throws -> [String] {
        try whileLocked {
            let all = try list()
            let complete = all.filter { $0.manifest != nil }
            let kept = Set(complete.suffix(max(keep, 1)).map(\.id))
            let removed = all.map(\.id).filter { !kept.contains($0) }
            for id in removed { try FileManager.default.removeItem(atPath: root + "/" + id) }
            var used = Set<String>()
            for listing in all where kept.contains(listing.id) {
                for entry in listing.manifest?.files ?? [] { used.insert(entry.sha256) }
            }
            let blobs = root + "/blobs"
            for shard in (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? [] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: blobs + "/" + shard)) ?? [] where !used.contains(name) {
                    try FileManager.default.removeItem(atPath: "\(blobs)/\(shard)/\(name)")
                }
            }
            return removed
        }
    }
}
