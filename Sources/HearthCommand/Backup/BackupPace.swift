import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How gently a backup runs beside a server: a limit on the bytes it reads per second.
///
/// A backup reads the whole data folder twice (the copy, then its SHA-256); unlimited, that burst of reading and
/// copying raised the p99 of the server's small writes 3.8× on this 2-core machine, at 64 MiB/s 1.9× (docs/benchmarks.md,
/// "Writes during a backup"). Running the backup's thread at the idle CPU priority (`SCHED_IDLE`) was tried and made it
/// worse (5.0× unlimited, 3.1× at 64 MiB/s), so the rate is the only knob.
struct BackupPace: Sendable {
    /// The rate when none is given: 64 MiB/s (a 1.2 GB database is backed up in about 40 s).
    static let defaultRate: Int64? = 64 << 20
    /// ``defaultRate`` as the options show it.
    static var defaultRateText: String { defaultRate.map { "\($0 >> 20)M" } ?? "0, no limit" }

    /// Bytes read per second at most; nil = as fast as the disk goes.
    var bytesPerSecond: Int64? = BackupPace.defaultRate

    /// `64M`, `1G`, `500K` (`64MiB`, `64MB` too: all powers of 1024), a plain number of bytes, or `0`/`off`/`unlimited` for no limit.
    static func rate(_ text: String) throws -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        if ["0", "OFF", "UNLIMITED", "NONE"].contains(t) { return nil }
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(t)
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        if digits.hasSuffix("I") { digits = digits.dropLast() }
        var unit: Int64 = 1
        if let last = digits.last, let u = units[last] {
            unit = u
            digits = digits.dropLast()
        }
        guard let n = Int64(digits), n > 0, n <= Int64.max / unit else {
            throw BackupRepository.Failure(description: "a backup rate is bytes per second with K, M or G, like 64M, or 0 for no limit (got \(text))")
        }
        return n * unit
    }

    /// Runs `body` on a thread of its own (a backup reads and writes files for as long as it takes; it does not hold a
    /// thread of the concurrency pool meanwhile) and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            let thread = Thread { done.resume(with: Result { try body() }) }
            thread.name = "hearth-backup"
            thread.start()
        }
    }
}

/// Holds a reader to a ``BackupPace``'s rate: after each piece it is told about, it sleeps as long as
/// the bytes so far are ahead of the rate. One per backup, used from one thread.
final class BackupPacer {
    private let bytesPerSecond: Int64?
    private let clock: () -> UInt64
    private let sleep: (UInt64) -> Void
    private let start: UInt64
    private var bytes: Int64 = 0

    /// `clock` gives nanoseconds on a monotonic clock and `sleep` waits that many; tests pass their own.
    init(
        _ pace: BackupPace, clock: @escaping () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
        sleep: @escaping (UInt64) -> Void = { usleep(useconds_t(clamping: $0 / 1000)) }
    ) {
        bytesPerSecond = pace.bytesPerSecond
        self.clock = clock
        self.sleep = sleep
        start = clock()
    }

    /// Counts `n` bytes read and waits until the rate allows them.
    func read(_ n: Int) {
        guard let bytesPerSecond else { return }
        bytes += Int64(n)
        let due = UInt64(Double(bytes) / Double(bytesPerSecond) * 1e9)
        let elapsed = clock() - start
        if due > elapsed { sleep(due - elapsed) }
    }
}
