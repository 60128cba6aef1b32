import Synchronization

/// Attempts counted in this process's memory: the single-node default (SQLite), where nothing else needs to see
/// the counts and a lock is faster than any database.
///
/// Each scope holds at most `capacity` keys: past that, a new key first drops the keys whose attempts all expired,
/// and everything only if every key is live. A flood of fresh keys in one scope (many addresses) therefore never
/// clears another scope's counts, and memory stays bounded.
///
/// ```swift
/// let auth = AuthService(projectID: "demo", store: accounts, keys: keys, attempts: MemoryAttemptStore())
/// ```
public final class MemoryAttemptStore: AttemptStore {
    /// Attempt times per key, per scope.
    private let scopes = Mutex<[String: [String: [Int64]]]>([:])
    /// Keys a scope holds before expired ones are swept out.
    public let capacity: Int

    /// An empty store keeping at most `capacity` keys per scope.
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Takes an attempt under the store's lock when the window has room.
    public func reserve(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Bool {
        withKeys(of: limit.scope) { keys in
            var kept = (keys[key] ?? []).filter { $0 > now - limit.window }
            guard kept.count < limit.limit else {
                keys[key] = kept.isEmpty ? nil : kept
                return false
            }
            kept.append(now)
            if keys[key] == nil { makeRoom(in: &keys, window: limit.window, now: now) }
            keys[key] = kept
            return true
        }
    }

    /// Removes one attempt at `time` (the latest such).
    public func release(_ key: String, under limit: AttemptLimit, at time: Int64) async throws {
        withKeys(of: limit.scope) { keys in
            guard var times = keys[key], let i = times.lastIndex(of: time) else { return }
            times.remove(at: i)
            keys[key] = times.isEmpty ? nil : times
        }
    }

    /// Drops the key.
    public func reset(_ key: String, under limit: AttemptLimit) async throws {
        _ = withKeys(of: limit.scope) { $0.removeValue(forKey: key) }
    }

    /// Counts the key's attempts in the window (and forgets its expired ones).
    public func count(_ key: String, under limit: AttemptLimit, now: Int64) async throws -> Int {
        withKeys(of: limit.scope) { keys in
            guard let times = keys[key] else { return 0 }
            let kept = times.filter { $0 > now - limit.window }
            keys[key] = kept.isEmpty ? nil : kept
            return kept.count
        }
    }

    /// Appends an attempt.
    public func record(_ key: String, under limit: AttemptLimit, now: Int64) async throws {
        withKeys(of: limit.scope) { keys in
            if keys[key] == nil { makeRoom(in: &keys, window: limit.window, now: now) }
            keys[key, default: []].append(now)
        }
    }

    /// How many keys `scope` holds now (expired ones included until they are swept out).
    public func keyCount(scope: String) -> Int {
        scopes.withLock { $0[scope]?.count ?? 0 }
    }

    /// Runs `body` on one scope's keys in place (a copy taken out of the dictionary would be copied whole on
    /// its first change), under the store's lock.
    private func withKeys<R: Sendable>(of scope: String, _ body: (inout [String: [Int64]]) -> R) -> R {
        scopes.withLock { scopes in body(&scopes[scope, default: [:]]) }
    }

    /// At `capacity` keys, drops the expired ones, and everything only if all are live.
    private func makeRoom(in keys: inout [String: [Int64]], window: Int64, now: Int64) {
        guard keys.count >= capacity else { return }
        let cutoff = now - window
        keys = keys.filter { entry in entry.value.contains { $0 > cutoff } }
        if keys.count >= capacity { keys.removeAll() }
    }
}
