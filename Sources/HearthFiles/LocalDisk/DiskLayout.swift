/// Where each kind of file lives under the store's folder.
///
/// ```
/// <folder>/blobs/<first two digits of id>/<id>   committed blobs (immutable)
/// <folder>/tmp/<id>                               blobs being written (removed on start)
/// <folder>/uploads/<upload id>                    resumable upload sessions
/// ```
/// Every file name is a validated 32-digit id, never an object name.
struct DiskLayout: Sendable {
    let root: String

    init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    var blobs: String { root + "/blobs" }
    var temporary: String { root + "/tmp" }
    var uploads: String { root + "/uploads" }

    func shard(of id: BlobID) -> String { blobs + "/" + id.shard }
    func blob(_ id: BlobID) -> String { shard(of: id) + "/" + id.rawValue }
    func temporary(_ id: BlobID) -> String { temporary + "/" + id.rawValue }
    func upload(_ id: UploadID) -> String { uploads + "/" + id.rawValue }
}

extension DiskLayout {
    /// Puts a finished file in place as blob `id` by running `move` (a rename or a hard link to
    /// the blob's path), creating the shard folder on first use, then syncs the shard folder so
    /// the new name survives a crash. Runs on the thread pool.
    func place(_ id: BlobID, durable: Bool, by move: () throws -> Void) throws {
        let shard = shard(of: id)
        do {
            try move()
        } catch let error where Posix.isMissing(error) {
            // Either the shard folder does not exist yet, or the source is gone (then this
            // throws the same error again).
            if try Posix.makeFolder(shard), durable { try Posix.syncFolder(blobs) }
            try move()
        }
        if durable { try Posix.syncFolder(shard) }
    }
}
