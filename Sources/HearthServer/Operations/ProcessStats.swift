#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the kernel says about this process (Linux `/proc/self`); nil where it cannot be read (other systems).
enum ProcessStats {
    /// Resident memory in bytes: the second field of `/proc/self/statm` times the page size.
    static func residentBytes() -> Int? {
        guard let text = readSmallFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Open file descriptors: the entries of `/proc/self/fd`, less the one the count itself holds open.
    static func openDescriptors() -> Int? {
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            // The entries are numbers, besides `.` and `..`.
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first }
            if first != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1
    }

    /// The soft limit on open file descriptors.
    static func descriptorLimit() -> Int? {
        #if os(Linux)
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return limit.rlim_cur >= UInt(Int.max) ? nil : Int(limit.rlim_cur)
        #else
        return nil
        #endif
    }

    /// The text of a file of at most 4 KiB.
    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n), as: UTF8.self)
    }
}
