/// One token bucket: it holds up to `burst` tokens, gains `perSecond` tokens a second, and each request takes one.
/// Plain arithmetic on a monotonic clock in nanoseconds, so it is tested without waiting.
struct TokenBucket: Sendable, Equatable {
    /// Tokens left (fractions accumulate between requests).
    var tokens: Double
    /// When `tokens` was last brought up to date, in nanoseconds of the table's clock.
    var updated: UInt64

    /// A full bucket at `now`.
    init(full limit: RateLimit, now: UInt64) {
        tokens = Double(limit.burst)
        updated = now
    }

    /// Takes one token at `now`: nil when there was one, otherwise the seconds until there will be one (rounded up
    /// to whole seconds, at least 1: what `Retry-After` says). A refused request takes nothing.
    mutating func take(now: UInt64, limit: RateLimit) -> Int? {
        refill(now: now, limit: limit)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let seconds = (1 - tokens) / limit.perSecond
        // A hair over a whole second (floating-point noise) must not become a second more.
        return max(1, Int((seconds - 1e-9).rounded(.up)))
    }

    /// Adds what was earned since `updated`, up to the burst.
    mutating func refill(now: UInt64, limit: RateLimit) {
        guard now > updated else { return }
        let earned = Double(now - updated) / 1e9 * limit.perSecond
        tokens = min(Double(limit.burst), tokens + earned)
        updated = now
    }

    /// Whether the bucket is full again at `now`: then it is no different from a new one, and may be forgotten.
    func isFull(now: UInt64, limit: RateLimit) -> Bool {
        var copy = self
        copy.refill(now: now, limit: limit)
        return copy.tokens >= Double(limit.burst)
    }
}
