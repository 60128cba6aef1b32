/// How long the connection waits before reconnecting: exponential, capped, with jitter.
///
/// The n-th consecutive retry (from 0) waits `initialDelay × multiplierⁿ`, at most `maximumDelay`,
/// less a random share of up to `jitter` of it (so clients that dropped together do not all come
/// back at once). The count starts over after a connection that stayed up for `resetAfter`.
///
/// ```swift
/// let backoff = RealtimeBackoff()
/// backoff.delay(attempt: 3, random: 0)  // 8 seconds
/// ```
struct RealtimeBackoff: Sendable, Hashable {
    var initialDelay: Duration = .seconds(1)
    var maximumDelay: Duration = .seconds(30)
    var multiplier: Double = 2
    /// The largest share of a delay taken off at random, in 0...1.
    var jitter: Double = 0.5
    /// A connection that stayed up this long resets the count.
    var resetAfter: Duration = .seconds(30)

    init(
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.5, resetAfter: Duration = .seconds(30)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.resetAfter = resetAfter
    }

    /// The wait before retry number `attempt` (from 0); `random` is a number in 0..<1.
    func delay(attempt: Int, random: Double) -> Duration {
        var delay = min(initialDelay, maximumDelay)
        var remaining = max(attempt, 0)
        while remaining > 0, delay < maximumDelay {
            delay = min(delay * multiplier, maximumDelay)
            remaining -= 1
        }
        let share = min(max(jitter, 0), 1) * min(max(random, 0), 1)
        return delay * (1 - share)
    }
}
