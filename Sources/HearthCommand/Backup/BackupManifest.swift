import Foundation

/// What one backup holds: every file of the data folder with its content's SHA-256, written last
/// (as `<backups>/<id>/manifest.json`), so a backup folder without one is known to be incomplete.
struct BackupManifest: Codable, Sendable {
    /// One file of the data folder.
    struct Entry: Codable, Sendable {
        /// The path inside the data folder, `/`-separated (`demo.sqlite`, `storage/blobs/e1/e14a…`).
        var path: String
        /// Lowercase hex SHA-256 of the content; also its name in the backups' `blobs` folder.
        var sha256: String
        /// The content's size in bytes.
        var size: Int64
        /// `sqlite` (an online snapshot of a database) or `file` (the file's bytes).
        var kind: String
        /// The source file's modification time (seconds since 1970) when it was read; for a
        /// `file`, lets the next backup skip re-reading an unchanged file.
        var modified: Double
        /// For a namespace database (format 2): the sequence number of the last change in the snapshot.
        var sequence: UInt64?
        /// For a namespace database (format 2): milliseconds since 1970 when the snapshot was finished;
        /// every change it holds was committed before then.
        var snapshotMillis: Int64?
        /// For a namespace database (format 2): milliseconds since 1970 just before the snapshot started;
        /// every change committed well before then (see `PointInTimeRestore.margin`) is in it.
        var snapshotStartMillis: Int64?
        /// For a namespace database (format 2): the commit time of change ``sequence``, when the
        /// snapshot's write log holds it.
        var sequenceMillis: Int64?
        /// For a namespace database (format 2): the first sequence number its write log holds (nil: none).
        var logFirst: UInt64?

        /// The latest point in time the snapshot stands for: every change in it was committed at or before then.
        var pointMillis: Int64? { sequenceMillis ?? snapshotMillis }

        /// Whether this is a realtime-database namespace (`<name>.sqlite` at the top, no other dot).
        var isNamespace: Bool { kind == "sqlite" && Self.isNamespacePath(path) }

        /// Whether `path` names a namespace database (the accounts, storage and links files have a second dot).
        static func isNamespacePath(_ path: String) -> Bool {
            path.hasSuffix(".sqlite") && !path.contains("/") && !path.dropLast(".sqlite".count).contains(".")
        }
    }

    /// The manifest format; readers refuse a newer one. Format 2 adds each namespace database's
    /// sequence and snapshot time (for point-in-time restores); format 1 manifests still restore.
    var format = 2
    /// The backup's name, its folder under the backups folder (UTC time it started, `20261129-085314`).
    var id: String
    /// When the backup started (ISO 8601, UTC).
    var started: String
    /// When the last file was stored (ISO 8601, UTC).
    var finished: String
    /// The data folder it was made from.
    var source: String
    /// Every file, sorted by path.
    var files: [Entry]

    /// The total size of the files (what a restore writes).
    var totalSize: Int64 { files.reduce(0) { $0 + $1.size } }
}
