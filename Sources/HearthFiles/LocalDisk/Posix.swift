#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, kept as the `cause` of a ``BlobStoreError`` with code `.io`.
struct PosixFailure: Error, CustomStringConvertible {
    var call: String
    var code: Int32

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// The blocking system calls the local-disk store needs. Every function here blocks: call them on
/// the thread pool, except `closeFile` and `removeFile` in clean-up paths, which are quick and
/// must run even when the task is cancelled.
enum Posix {
    static let filePermissions: mode_t = 0o600
    static let folderPermissions: mode_t = 0o700

    static func failure(_ call: String, _ code: Int32 = errno) -> BlobStoreError {
        BlobStoreError(.io, "file system operation failed", cause: PosixFailure(call: call, code: code))
    }

    /// True if `error` is a failed call that found no such file or folder.
    static func isMissing(_ error: any Error) -> Bool {
        ((error as? BlobStoreError)?.cause as? PosixFailure)?.code == ENOENT
    }

    /// True if `error` is a failed call that found the disk full (`ENOSPC`) or the user's quota used up (`EDQUOT`).
    static func isDiskFull(_ error: any Error) -> Bool {
        guard let code = ((error as? BlobStoreError)?.cause as? PosixFailure)?.code else { return false }
        return code == ENOSPC || code == EDQUOT
    }

    /// True if `error` is a `link` the file system cannot do (another device, no hard links,
    /// too many links), so that copying the bytes is the way out.
    static func isLinkUnsupported(_ error: any Error) -> Bool {
        guard let code = ((error as? BlobStoreError)?.cause as? PosixFailure)?.code else { return false }
        return [EXDEV, EPERM, EMLINK, ENOTSUP, EOPNOTSUPP, ENOSYS].contains(code)
    }

    /// Runs `body` until it does not fail with EINTR; returns its result or the errno.
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ body: () -> T) -> (T, Int32) {
        while true {
            let result = body()
            if result >= 0 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    /// Creates a new file for writing; fails if it exists.
    static func create(_ path: String) throws -> Int32 {
        let (fd, code) = retrying { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, filePermissions) }
        guard fd >= 0 else { throw failure("open", code) }
        return fd
    }

    /// Opens an existing file; nil if it does not exist.
    static func openFile(_ path: String, writing: Bool) throws -> Int32? {
        let flags = (writing ? O_WRONLY : O_RDONLY) | O_CLOEXEC
        let (fd, code) = retrying { open(path, flags) }
        if fd >= 0 { return fd }
        if code == ENOENT { return nil }
        throw failure("open", code)
    }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let (n, code) = retrying {
                pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            }
            guard n > 0 else { throw failure("pwrite", n == 0 ? EIO : code) }
            done += n
        }
    }

    /// Fills `buffer` from `offset`; returns fewer bytes only at the end of the file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let (n, code) = retrying {
                pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            }
            guard n >= 0 else { throw failure("pread", code) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Linux's `O_DIRECT`, which Swift's Glibc module does not export (its value differs by
    /// architecture); nil where direct I/O is not used.
    #if os(Linux) && arch(x86_64)
    static let directFlag: Int32? = 0o40000
    #elseif os(Linux) && arch(arm64)
    static let directFlag: Int32? = 0o200000
    #else
    static let directFlag: Int32? = nil
    #endif

    /// The alignment direct I/O needs for buffer addresses, file offsets and lengths (4 KiB
    /// covers every logical block size Linux file systems use).
    static let directAlignment = 4096

    /// `count` rounded up to whole pages of `directAlignment` (at least one).
    static func wholePages(_ count: Int) -> Int {
        max((count + directAlignment - 1) / directAlignment, 1) * directAlignment
    }

    /// Turns direct I/O (no page cache) on or off for an open file. False if the platform or
    /// the file system does not support it (tmpfs, for one); the file is then unchanged.
    static func setDirect(_ fd: Int32, _ on: Bool) -> Bool {
        guard let flag = directFlag else { return false }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return false }
        return fcntl(fd, F_SETFL, on ? flags | flag : flags & ~flag) == 0
    }

    /// `writeAll` for a file with direct I/O on: if the kernel refuses the direct write (EINVAL:
    /// an alignment the device does not accept), turns direct I/O off and writes through the
    /// page cache instead, so a surprise costs speed, never data.
    static func writeAllDirect(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        do {
            try writeAll(fd, bytes, at: offset)
        } catch let error as BlobStoreError where (error.cause as? PosixFailure)?.code == EINVAL {
            guard setDirect(fd, false) else { throw error }
            try writeAll(fd, bytes, at: offset)
        }
    }

    /// `read` for a file with direct I/O on, into a page-aligned buffer of whole pages from a
    /// page-aligned offset. After a short read (the end of the file, usually) or if the kernel
    /// refuses the direct read (EINVAL), turns direct I/O off and reads the rest through the
    /// page cache, which the unaligned offset then needs.
    static func readDirect(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let (n, code) = retrying {
                pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            }
            if n < 0, code == EINVAL, setDirect(fd, false) {
                return try done + read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            }
            guard n >= 0 else { throw failure("pread", code) }
            if n == 0 { break }
            done += n
            if done % directAlignment != 0, done < buffer.count {
                // Usually the end of the file; where a file system returns short direct reads
                // mid-file, the rest comes through the page cache (an unaligned offset).
                _ = setDirect(fd, false)
                return try done + read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            }
        }
        return done
    }

    static func sync(_ fd: Int32) throws {
        let (result, code) = retrying { fsync(fd) }
        guard result == 0 else { throw failure("fsync", code) }
    }

    /// Makes changes to a folder's entries (creations, renames) durable.
    static func syncFolder(_ path: String) throws {
        let (fd, code) = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw failure("open", code) }
        defer { closeFile(fd) }
        try sync(fd)
    }

    static func size(_ fd: Int32) throws -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("fstat") }
        return Int64(info.st_size)
    }

    /// Size and modification time (seconds since 1970) of a file; nil if it does not exist.
    static func status(_ path: String) throws -> (size: Int64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw failure("stat")
        }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec)
        #else
        let modified = Int64(info.st_mtim.tv_sec)
        #endif
        return (Int64(info.st_size), modified)
    }

    static func renameItem(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else { throw failure("rename") }
    }

    static func hardLink(_ from: String, to: String) throws {
        guard link(from, to) == 0 else { throw failure("link") }
    }

    /// Removes a file; false if it did not exist.
    @discardableResult
    static func removeFile(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw failure("unlink")
    }

    /// Creates a folder; false if it already existed.
    @discardableResult
    static func makeFolder(_ path: String) throws -> Bool {
        if mkdir(path, folderPermissions) == 0 { return true }
        if errno == EEXIST { return false }
        throw failure("mkdir")
    }

    /// Creates a folder and any missing parents.
    static func makeFolders(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            try makeFolder(prefix)
        }
    }

    /// Names of the entries in a folder, without `.` and `..`.
    static func list(_ path: String) throws -> [String] {
        guard let folder = opendir(path) else { throw failure("opendir") }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
