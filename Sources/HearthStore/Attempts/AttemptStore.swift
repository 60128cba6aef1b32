/// A limit on attempts: at most `limit` of them per key in any `window` milliseconds, counted apart from
/// every other limit's (its `scope` is part of the key).
public struct AttemptLimit: Sendable, Hashable {
    /// Names the limit (`password`, `address`, `message`); keys of different scopes never count together.
    public var scope: String
    /// Attempts a key may have in one window.
    public var limit: Int
    /// How far back attempts count, in milliseconds (a sliding window).
    public var window: Int64

    /// At most `limit` attempts per key in any `window` milliseconds, under the name `scope`.
    public init(scope: String, limit: Int, window: Int64) {
        self.scope = scope
        self.limit = limit
        self.window = window
    }
}

/// Where attempts are counted for rate limits (password sign-ins per email and address, messages per recipient):
/// per key in a sliding window, so every node that shares the store sees one count.
///
/// A key is a value the caller chose (an email, a client address); stores keep it as given and never log it.
/// Times are milliseconds since 1970 from the caller's clock; an attempt counts while it is newer than
/// `now - window`. Expired attempts are forgotten on the store's own schedule, so storage stays bounded.
///
/// ```swift
/// let password = AttemptLimit(scope: "password", limit: 10, window: 5 * 60 * 1000)
/// guard try await attempts.reserve("ada@example.com", under: password, now: now) else { throw tooMany }
/// // … the password was right:
/// try await attempts.release("ada@example.com", under: password, at: now)
/// ```
public protocol AttemptStore: Sendable {
    /// Takes one attempt for `key` at `now` if fewer than `limit.limit` are in the window, in one step with that
    /// check: concurrent callers (on every node sharing the store) cannot all pass before one is counted. False, and
    /// nothing taken, when the window is full.
    func reserve(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Bool
    /// Gives back one attempt that ``reserve(_:under:now:)`` took at `time` (none left at that time: nothing).
    func release(_ key: String, under limit: AttemptLimit, at time: Int64) async throws
    /// Forgets every attempt of `key`.
    func reset(_ key: String, under limit: AttemptLimit) async throws
    /// How many attempts `key` has in the window ending at `now`.
    func count(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Int
    /// Counts one attempt for `key` at `now`, whatever the count (check first with ``count(_:under:now:)``).
    func record(_ key: String, under limit: AttemptLimit, now: Int64) async throws
}
