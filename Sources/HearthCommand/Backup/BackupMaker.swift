import Crypto
import Foundation
import HearthSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes one backup of a data folder into a ``BackupRepository`` while a server may be using the folder.
///
/// Order: the plain files (signing keys, blobs, config) are stored, then every `*.sqlite` database is
/// snapshotted online (``SQLiteSnapshot``), then files that appeared meanwhile (blobs of uploads
/// committed during the snapshots) are stored too, so every object the storage catalog snapshot
/// lists has its blob in the backup. The manifest is written last.
struct BackupMaker {
    /// What one backup did.
    struct Summary: Sendable {
        /// The backup's manifest.
        var manifest: BackupManifest
        /// Bytes written to the backups folder (content it did not hold yet).
        var newBytes: Int64
        /// Seconds it took.
        var seconds: Double
    }

    /// The data folder, absolute.
    let data: String
    /// Where the backup goes.
    let repository: BackupRepository
    /// How fast it may read.
    var pace = BackupPace()

    /// Makes the backup and returns its manifest; throws (leaving no manifest) when any file cannot be stored.
    func make() throws -> Summary {
        try repository.whileLocked { try makeLocked() }
    }

    private func makeLocked() throws -> Summary {
        let start = Date()
        let pacer = BackupPacer(pace)
        let fm = FileManager.default
        try? fm.removeItem(atPath: repository.temporary)
        try fm.createDirectory(atPath: repository.temporary, withIntermediateDirectories: true)
        let id = try newID(start)
        let previous = try repository.list().reversed().lazy.compactMap(\.manifest).first
        var known: [String: BackupManifest.Entry] = [:]
        for entry in previous?.files ?? [] where entry.kind == "file" { known[entry.path] = entry }
        var entries: [String: BackupManifest.Entry] = [:]
        var newBytes: Int64 = 0
        func storeFiles() throws {
            for path in try sourceFiles().files where entries[path] == nil {
                guard let entry = try storeFile(path, known: known[path], pacer: pacer, newBytes: &newBytes) else { continue }
                entries[path] = entry
            }
        }
        try storeFiles()
        for path in try sourceFiles().databases {
            entries[path] = try storeDatabase(path, pacer: pacer, newBytes: &newBytes)
        }
        try storeFiles()
        let manifest = BackupManifest(
            id: id, started: Self.timestamp(start), finished: Self.timestamp(Date()), source: data,
            files: entries.values.sorted { $0.path < $1.path })
        try repository.commit(manifest)
        try? fm.removeItem(atPath: repository.temporary)
        return Summary(manifest: manifest, newBytes: newBytes, seconds: Date().timeIntervalSince(start))
    }

    /// The data folder's files (relative paths): plain files and SQLite databases, leaving out WAL and
    /// shared-memory files, blobs being written, resumable upload sessions and the backups folder.
    func sourceFiles() throws -> (files: [String], databases: [String]) {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: data) else { throw BackupRepository.Failure(description: "cannot read the data folder \(data)") }
        let backupsInside = repository.root.hasPrefix(data + "/") ? String(repository.root.dropFirst(data.count + 1)) : nil
        var files: [String] = []
        var databases: [String] = []
        while let path = walker.nextObject() as? String {
            if path == backupsInside || path == "storage/tmp" || path == "storage/uploads" {
                walker.skipDescendants()
                continue
            }
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            if name == ".write-probe" || ["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) { continue }
            if name.hasSuffix(".sqlite") { databases.append(path) } else { files.append(path) }
        }
        return (files.sorted(), databases.sorted())
    }

    private func storeDatabase(_ path: String, pacer: BackupPacer, newBytes: inout Int64) throws -> BackupManifest.Entry {
        let scratch = repository.temporary + "/" + UUID().uuidString + ".sqlite"
        let started = Self.millis(Date())
        do {
            try SQLiteSnapshot.copy(from: data + "/" + path, to: scratch, syncEvery: Self.syncEvery) { pacer.read($0) }
        } catch {
            throw BackupRepository.Failure(description: "cannot snapshot \(data)/\(path): \(error)")
        }
        let modified = Date().timeIntervalSince1970
        var entry = BackupManifest.Entry(path: path, sha256: "", size: 0, kind: "sqlite", modified: modified)
        if entry.isNamespace, let info = try? WriteLog.info(ofFile: scratch) {
            entry.sequence = info.sequence
            entry.snapshotStartMillis = started
            entry.snapshotMillis = Int64((modified * 1000).rounded(.up))
            entry.sequenceMillis = info.sequenceMillis
            entry.logFirst = info.first
        }
        try Self.syncFile(scratch)
        let (sha, size) = try BackupRepository.digest(of: scratch) { pacer.read($0) }
        newBytes += try place(scratch, sha: sha, size: size)
        entry.sha256 = sha
        entry.size = size
        return entry
    }

    /// Stores a plain file; nil when it vanished since the listing (a deleted blob).
    private func storeFile(_ path: String, known: BackupManifest.Entry?, pacer: BackupPacer, newBytes: inout Int64) throws -> BackupManifest.Entry? {
        let source = data + "/" + path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: source) else { return nil }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        if let known, known.size == size, known.modified == modified, FileManager.default.fileExists(atPath: repository.blob(known.sha256)) {
            return known
        }
        let scratch = repository.temporary + "/" + UUID().uuidString
        guard let (sha, copied) = try Self.copyHashing(from: source, to: scratch, afterPiece: pacer.read) else { return nil }
        newBytes += try place(scratch, sha: sha, size: copied)
        return .init(path: path, sha256: sha, size: copied, kind: "file", modified: modified)
    }

    /// Moves a synced scratch file to its content's place, or drops it when that content is already
    /// stored; returns the bytes added.
    private func place(_ scratch: String, sha: String, size: Int64) throws -> Int64 {
        let target = repository.blob(sha)
        if FileManager.default.fileExists(atPath: target) {
            try FileManager.default.removeItem(atPath: scratch)
            return 0
        }
        let shard = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
        guard rename(scratch, target) == 0 else { throw BackupRepository.Failure(description: "cannot move \(scratch) to \(target): errno \(errno)") }
        BackupRepository.syncFolder(shard)
        return size
    }

    /// Copies `source` to `target`, hashing what it copies, and syncs the copy; nil when `source` is gone.
    /// `afterPiece` gets the size of each piece (up to 256 KiB) read.
    static func copyHashing(from source: String, to target: String, afterPiece: (Int) -> Void = { _ in }) throws -> (String, Int64)? {
        guard let input = FileHandle(forReadingAtPath: source) else { return nil }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target, contents: nil), let output = FileHandle(forWritingAtPath: target) else {
            throw BackupRepository.Failure(description: "cannot write \(target)")
        }
        defer { try? output.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        var unsynced = 0
        while let piece = try input.read(upToCount: 256 << 10), !piece.isEmpty {
            hasher.update(data: piece)
            try output.write(contentsOf: piece)
            size += Int64(piece.count)
            unsynced += piece.count
            if unsynced >= syncEvery {
                try output.synchronize()
                unsynced = 0
            }
            afterPiece(piece.count)
        }
        try output.synchronize()
        return (BackupRepository.hex(hasher.finalize()), size)
    }

    /// Bytes a backup writes before it syncs them: small syncs as it goes, never one burst of a whole database's
    /// pages at the end (which held the server's commits up to half a second).
    static let syncEvery = 16 << 20

    /// fsyncs the file at `path`.
    static func syncFile(_ path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw BackupRepository.Failure(description: "cannot open \(path)") }
        defer { try? handle.close() }
        try handle.synchronize()
    }

    /// A folder name not used yet: the UTC start time, with `-2`, `-3`… when two backups start in one second.
    private func newID(_ start: Date) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = formatter.string(from: start)
        var id = base
        var n = 1
        while FileManager.default.fileExists(atPath: repository.root + "/" + id) {
            n += 1
            id = "\(base)-\(n)"
        }
        try FileManager.default.createDirectory(atPath: repository.root + "/" + id, withIntermediateDirectories: true)
        return id
    }

    /// Milliseconds since 1970, rounded down.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// ISO 8601 in UTC.
    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
