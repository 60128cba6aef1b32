import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure that ends a scenario with a readable message.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A value shared between threads behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout sending Value) throws -> sending R) rethrows -> R {
        try mutex.withLock(body)
    }
}

/// Runs async work from synchronous code (the bench's main thread is not part of the concurrency pool) and waits.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let r: Result<T, any Error>
        do { r = .success(try await body()) } catch { r = .failure(error) }
        outcome.withLock { $0 = r }
        done.signal()
    }
    done.wait()
    guard let r = outcome.withLock({ $0 }) else { throw BenchError("async work did not finish") }
    return try r.get()
}

/// Monotonic time in nanoseconds (the same clock in every thread of this process). Dispatch's uptime clock rather than
/// `clock_gettime` + `timespec`: which module owns the C struct depends on the dependency graph, and under
/// MemberImportVisibility its fields then need an import of that module (CoreFoundation once HearthAuth came in).
@inline(__always)
func nowNanos() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    usleep(UInt32(min(seconds, 4000) * 1_000_000))
}

/// Sleeps until the monotonic clock reaches `deadline` (ns).
func sleep(until deadline: UInt64) {
    let now = nowNanos()
    if deadline > now { sleepSeconds(Double(deadline - now) / 1e9) }
}

/// Writes to stdout unbuffered, so it interleaves correctly with the stderr progress log.
func out(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("[bench] \(message)\n".utf8))
}

/// Latency samples in nanoseconds.
struct Samples {
    private(set) var values: [UInt64] = []
    private var sorted = true

    init(_ values: [UInt64] = []) {
        self.values = values
        sorted = false
    }

    mutating func add(_ v: UInt64) {
        values.append(v)
        sorted = false
    }

    mutating func add(contentsOf other: [UInt64]) {
        values.append(contentsOf: other)
        sorted = false
    }

    var count: Int { values.count }

    /// Nearest-rank percentile in milliseconds (nil when empty).
    mutating func percentileMs(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        if !sorted {
            values.sort()
            sorted = true
        }
        let rank = Int((p / 100 * Double(values.count)).rounded(.up))
        let index = min(max(rank - 1, 0), values.count - 1)
        return Double(values[index]) / 1e6
    }

    var meanMs: Double? {
        guard !values.isEmpty else { return nil }
        return values.reduce(0.0) { $0 + Double($1) } / Double(values.count) / 1e6
    }
}

/// An unsigned ID token (`alg: none`, empty signature) for the user `uid`. `hearth serve --dev` accepts it as
/// `Authorization: Bearer <token>` and runs the request under the rules with `auth.uid == uid`, as a client that signed
/// in would (one token per user).
func unsignedDevIDToken(uid: String) -> String {
    func base64URL(_ json: String) -> String {
        Data(json.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + base64URL(#"{"sub":"\#(uid)","user_id":"\#(uid)"}"#) + "."
}

/// SplitMix64: a small deterministic generator so seeded data is the same on every run.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
func freeLocalPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw BenchError("bind() failed: errno \(errno)") }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let got = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    guard got == 0 else { throw BenchError("getsockname() failed: errno \(errno)") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Raises the open-file limit to the hard limit (1,000 SSE listeners need more than the usual 1,024 descriptors);
/// the server, spawned by us, inherits it.
func raiseOpenFileLimit() {
    #if os(Linux)
    var rl = rlimit()
    if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rl) == 0, rl.rlim_cur < rl.rlim_max {
        rl.rlim_cur = rl.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rl)
    }
    #endif
}

func currentOpenFileLimit() -> Int {
    var rl = rlimit()
    #if os(Linux)
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return -1 }
    #else
    guard getrlimit(RLIMIT_NOFILE, &rl) == 0 else { return -1 }
    #endif
    return Int(rl.rlim_cur)
}

/// The absolute path of this executable.
func ownExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if n > 0 {
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
}

/// Looks an executable up on PATH.
func findOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

func makeTemporaryDirectory(prefix: String) throws -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let result = mkdtemp(&template) else { throw BenchError("mkdtemp failed: errno \(errno)") }
    return String(cString: result)
}

/// Facts about the machine for the report.
struct MachineInfo: Codable {
    var cpus: Int
    var cpuModel: String
    var memoryMB: Int
    var kernel: String
    var openFileLimit: Int

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memKB = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let sys = withUnsafeBytes(of: &u.sysname) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return MachineInfo(
            cpus: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpuModel: model, memoryMB: memKB / 1024,
            kernel: "\(sys) \(release)", openFileLimit: currentOpenFileLimit())
    }
}

/// CPU seconds (user + system) used by this process and by its reaped children (wrk runs are reaped when they end).
func cpuSeconds(children: Bool) -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    func secs(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Busy CPU seconds of the whole machine so far (all cores; from /proc/stat).
func machineBusyCPUSeconds() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
        let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
    else { return nil }
    let v = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard v.count >= 8 else { return nil }
    // user nice system idle iowait irq softirq steal
    let busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The 1-minute load average.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}
