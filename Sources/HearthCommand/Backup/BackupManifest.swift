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
    }

    /// The manifest format; readers refuse a newer one.
    var format = 1
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
