import Foundation

/// The time source of the realtime connection, injected so tests control keep-alives and backoff.
///
/// ```swift
/// let clock: any RealtimeClock = SystemRealtimeClock()
/// let started = clock.uptime
/// try await clock.sleep(for: .seconds(1))
/// print(clock.uptime - started)
/// ```
protocol RealtimeClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var uptime: Duration { get }
    /// Wall-clock time in milliseconds since 1970, to compute the server's time offset.
    var millisecondsSince1970: Int64 { get }
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `ContinuousClock` for waits and uptime, `Date` for the wall clock.
struct SystemRealtimeClock: RealtimeClock {
    private let origin = ContinuousClock.now

    var uptime: Duration { origin.duration(to: .now) }

    var millisecondsSince1970: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
