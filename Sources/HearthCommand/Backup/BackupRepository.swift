import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A backups folder: content-addressed files shared by every backup, and one folder per backup.
///
/// ```
/// <backups>/blobs/<first two hex digits>/<sha256>   file contents, stored once however many backups hold them
/// <backups>/<id>/manifest.json                      a complete backup (written last)
/// <backups>/tmp/                                    files being written (removed by the next backup)
/// <backups>/lock                                    held while a backup or a prune runs
/// ```
struct BackupRepository: Sendable {
    /// Why a backup operation could not be done; `description` is shown to the user.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong, naming the file.
        var description: String
    }

    /// A backup folder as `list` shows it.
    struct Listing: Sendable {
        /// The folder's name.
        var id: String
        /// Its manifest, nil when the backup never finished (killed, out of disk).
        var manifest: BackupManifest?
    }

    /// The backups folder, absolute.
    let root: String

    /// The backups folder at `root`, which need not exist yet.
    init(root: String) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.path
    }

    /// Where the content with hash `sha256` is stored.
    func blob(_ sha256: String) -> String { "\(root)/blobs/\(sha256.prefix(2))/\(sha256)" }
    /// The folder for scratch files.
    var temporary: String { root + "/tmp" }
    /// The manifest file of backup `id`.
    func manifestPath(_ id: String) -> String { "\(root)/\(id)/manifest.json" }

    /// Every backup folder, oldest first, with its manifest when it has one.
    func list() throws -> [Listing] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        // By start time, then by the `-2`, `-3`… of backups started in the same second.
        func order(_ id: String) -> (String, Int) { (String(id.prefix(15)), Int(id.dropFirst(16)) ?? 1) }
        return try names.filter { Self.isBackupID($0) }.sorted { order($0) < order($1) }.map { id in
            Listing(id: id, manifest: try manifest(id))
        }
    }

    /// The manifest of backup `id`, nil when there is none (an incomplete backup).
    func manifest(_ id: String) throws -> BackupManifest? {
        guard let data = FileManager.default.contents(atPath: manifestPath(id)) else { return nil }
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            throw Failure(description: "\(manifestPath(id)) is damaged (\(error))")
        }
        guard (1...2).contains(manifest.format) else { throw Failure(description: "\(manifestPath(id)) has format \(manifest.format), newer than this hearth") }
        return manifest
    }

    /// Whether `name` looks like a backup folder (`yyyyMMdd-HHmmss`, maybe `-2`, `-3`…).
    static func isBackupID(_ name: String) -> Bool {
        name.count >= 15 && name.prefix(8).allSatisfy(\.isNumber) && name.dropFirst(8).first == "-"
    }

    /// Writes `manifest` as `<id>/manifest.json` durably: to a scratch file, synced, renamed, folder synced.
    func commit(_ manifest: BackupManifest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(manifest)
        let folder = "\(root)/\(manifest.id)"
        let scratch = folder + "/manifest.json.partial"
        try Self.writeSynced(data, to: scratch)
        guard rename(scratch, manifestPath(manifest.id)) == 0 else { throw Failure(description: "cannot rename \(scratch): errno \(errno)") }
        Self.syncFolder(folder)
    }

    /// Runs `body` holding `<backups>/lock` (an advisory `flock`), so two backups, or a backup and a
    /// prune, never run at once; fails at once when another process holds it.
    func whileLocked<R>(_ body: () throws -> R) throws -> R {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let fd = open(root + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(root)/lock: errno \(errno)") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw Failure(description: "another backup is running in \(root)") }
        return try body()
    }

    /// SHA-256 (lowercase hex) and size of the file at `path`, read in 256 KiB pieces.
    static func digest(of path: String, afterPiece: (Int) -> Void = { _ in }) throws -> (sha256: String, size: Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let piece = try handle.read(upToCount: 256 << 10), !piece.isEmpty {
            hasher.update(data: piece)
            size += Int64(piece.count)
            afterPiece(piece.count)
        }
        return (hex(hasher.finalize()), size)
    }

    /// Lowercase hex of a digest.
    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { byte in
            let s = String(byte, radix: 16)
            return byte < 16 ? "0" + s : s
        }.joined()
    }

    /// Writes `data` to `path` (replacing it) and syncs it to disk.
    static func writeSynced(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data),
              let handle = FileHandle(forUpdatingAtPath: path) else { throw Failure(description: "cannot write \(path)") }
        defer { try? handle.close() }
        try handle.synchronize()
    }

    /// fsyncs a folder so the names made in it survive a crash (best effort).
    static func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
