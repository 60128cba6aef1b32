import HearthStore

/// One rate limit of the auth service (password sign-ins per email and address, per client address, messages per
/// recipient) over the service's ``AttemptStore``: a sliding window per key that refuses once the key reaches the
/// limit.
///
/// Only `reserve` can refuse; giving back and forgetting never fail a request: a store that cannot be reached then
/// keeps an attempt counted until its window ends, which is the safe side of a limit.
struct SignInLimiter: Sendable {
    let store: any AttemptStore
    let limit: AttemptLimit

    /// Password sign-ins per email and client address: 10 per 5 minutes.
    static let password = AttemptLimit(scope: "password", limit: 10, window: 5 * 60 * 1000)
    /// Password sign-ins per client address: 100 per 5 minutes.
    static let address = AttemptLimit(scope: "address", limit: 100, window: 5 * 60 * 1000)
    /// Emails and SMS per recipient: `perHour` an hour.
    static func messages(_ perHour: Int) -> AttemptLimit { AttemptLimit(scope: "message", limit: perHour, window: 3_600_000) }
    /// Verification codes (SMS) asked for per client address: `perHour` an hour.
    static func smsPerAddress(_ perHour: Int) -> AttemptLimit { AttemptLimit(scope: "sms-address", limit: perHour, window: 3_600_000) }

    /// True when `key`'s window already holds `limit` events (checked before `record`, not in one step with it).
    func isFull(_ key: String, now: Int64) async throws -> Bool {
        try await store.count(key, under: limit, now: now) >= limit.limit
    }

    /// Counts one event for `key`.
    func record(_ key: String, now: Int64) async throws {
        try await store.record(key, under: limit, now: now)
    }

    /// Takes one of `key`'s attempts before the work it limits (a password hash), in one step with the check, so
    /// concurrent requests (on any node sharing the store) cannot all pass the check before any is counted:
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` when the window already holds `limit`. `release(_:at:)` gives it back.
    func reserve(_ key: String, now: Int64) async throws {
        if !(try await store.reserve(key, under: limit, now: now)) { throw AuthError("TOO_MANY_ATTEMPTS_TRY_LATER") }
    }

    /// Gives back an attempt `reserve` took at `now` (it succeeded, or was refused before any work).
    func release(_ key: String, at now: Int64) async {
        try? await store.release(key, under: limit, at: now)
    }

    /// Forgets `key`'s attempts (a successful sign-in).
    func reset(_ key: String) async {
        try? await store.reset(key, under: limit)
    }
}
