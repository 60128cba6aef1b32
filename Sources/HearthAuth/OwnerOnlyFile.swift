import Foundation

/// Files only their owner may read (signing keys, exports with password hashes, the admin token).
///
/// `FileManager.createFile(atPath:contents:attributes:)` on Linux writes the bytes with the
/// default mode and sets the requested one afterwards, so for a moment anyone may open the file.
/// Here the bytes go into a new file that is 0600 from its creation, renamed into place when
/// complete: a crash leaves the old file or the new one, never a truncated one.
public enum OwnerOnlyFile {
    /// Why a save failed: the system's error text (`strerror`).
    public struct Failure: Error, CustomStringConvertible {
        /// The system's error text; it does not contain the file's bytes.
        public var description: String
    }

    /// Writes `bytes` to `path` through `<path>.partial`, created with mode 0600 and renamed into place when complete.
    /// Throws ``Failure``; the old file, if any, is then left as it was.
    public static func save(_ bytes: [UInt8], to path: String) throws {
        // A `.partial` left by a crash is removed first; `O_EXCL` then refuses anything that
        // reappears there (or could not be removed, like a directory), symlinks included.
        let partial = path + ".partial"
        unlink(partial)
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
        var failure: Failure?
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = Failure(description: String(cString: strerror(errno)))
                break
            }
            written += n
        }
        if failure == nil && fsync(fd) != 0 { failure = Failure(description: String(cString: strerror(errno))) }
        close(fd)
        if failure == nil && rename(partial, path) != 0 { failure = Failure(description: String(cString: strerror(errno))) }
        if let failure {
            unlink(partial)
            throw failure
        }
    }
}
