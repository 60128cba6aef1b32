import HTTPTypes
import NIOCore
import Synchronization
import Testing

@testable import HearthServer

/// The token buckets behind `--rate-limit-ip` / `--rate-limit-user`, on an injected clock.
@Suite("Rate limits")
struct RateLimitTests {
    /// A clock the test moves by hand, in nanoseconds.
    final class ManualClock: Sendable {
        /// Now.
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        /// Moves the clock on by `seconds`.
        func advance(_ seconds: Double) { nanoseconds.wrappingAdd(UInt64(seconds * 1e9), ordering: .relaxed) }
        /// The clock as a table takes it.
        var read: @Sendable () -> UInt64 { { [self] in nanoseconds.load(ordering: .relaxed) } }
    }

    /// Written rates and what they mean.
    @Test(arguments: [
        ("100/s", 100, 1, 100), ("6000/m", 6000, 60, 100), ("50000/h", 50000, 3600, 14), ("100/s,burst=200", 100, 1, 200),
        ("1/m", 1, 60, 1), ("5/s, burst=1", 5, 1, 1),
    ])
    func parsesRates(text: String, requests: Int, seconds: Int, burst: Int) throws {
        let limit = try RateLimit(parsing: text)
        #expect(limit.requests == requests)
        #expect(limit.seconds == seconds)
        #expect(limit.burst == burst)
        #expect(limit.isLimited)
    }

    /// `0` and `off` turn the limit off; anything else that is not a rate is refused.
    @Test func refusesNonsense() throws {
        #expect(try !RateLimit(parsing: "0").isLimited)
        #expect(try !RateLimit(parsing: "0/s").isLimited)
        #expect(try !RateLimit(parsing: "off").isLimited)
        for bad in ["", "100", "100/d", "-1/s", "abc/s", "10/s,burst=0", "10/s,size=3", "10/s,burst=2,burst=3", "１０/s"] {
            #expect(throws: RateLimit.InvalidRate.self, "\(bad)") { try RateLimit(parsing: bad) }
        }
    }

    /// A full bucket allows the burst at once, then one request per 1/rate seconds.
    @Test func burstThenRefill() {
        let clock = ManualClock()
        let table = BucketTable(capacity: 64, clock: clock.read)
        let limit = RateLimit(requests: 2, seconds: 1, burst: 5)
        for _ in 0..<5 { #expect(table.take("a", limit: limit) == nil) }
        #expect(table.take("a", limit: limit) == 1)
        clock.advance(0.5)  // one token earned
        #expect(table.take("a", limit: limit) == nil)
        #expect(table.take("a", limit: limit) == 1)
        clock.advance(10)  // refilled, but never past the burst
        for _ in 0..<5 { #expect(table.take("a", limit: limit) == nil) }
        #expect(table.take("a", limit: limit) != nil)
        // Another key has its own bucket.
        #expect(table.take("b", limit: limit) == nil)
    }

    /// `Retry-After` is the wait for one token, rounded up to whole seconds, at least 1.
    @Test func retryAfterRoundsUp() {
        let clock = ManualClock()
        let table = BucketTable(capacity: 64, clock: clock.read)
        let slow = RateLimit(requests: 1, seconds: 60, burst: 1)  // one a minute
        #expect(table.take("a", limit: slow) == nil)
        #expect(table.take("a", limit: slow) == 60)
        clock.advance(0.5)
        #expect(table.take("a", limit: slow) == 60)  // 59.5 s → 60
        clock.advance(58.6)
        #expect(table.take("a", limit: slow) == 1)  // 0.9 s → 1
        clock.advance(1)
        #expect(table.take("a", limit: slow) == nil)
        let fast = RateLimit(requests: 10, seconds: 1, burst: 1)
        #expect(table.take("b", limit: fast) == nil)
        #expect(table.take("b", limit: fast) == 1)  // 0.1 s → 1
        let thirds = RateLimit(requests: 1, seconds: 3, burst: 1)  // a token every 3 s exactly
        #expect(table.take("c", limit: thirds) == nil)
        #expect(table.take("c", limit: thirds) == 3)
        clock.advance(1)
        #expect(table.take("c", limit: thirds) == 2)
    }

    /// A refused request takes nothing: waiting the time said is always enough.
    @Test func waitingTheRetryAfterIsEnough() {
        let clock = ManualClock()
        let table = BucketTable(capacity: 64, clock: clock.read)
        let limit = RateLimit(requests: 3, seconds: 1, burst: 2)
        var allowed = 0
        for _ in 0..<200 {
            if let wait = table.take("a", limit: limit) { clock.advance(Double(wait)) } else { allowed += 1 }
        }
        #expect(allowed > 100)
    }

    /// A flood of distinct keys cannot grow the table past its capacity, and refilled buckets go first.
    @Test func tableStaysBounded() {
        let clock = ManualClock()
        let table = BucketTable(capacity: 256, shards: 4, clock: clock.read)
        let limit = RateLimit(requests: 1, seconds: 60, burst: 1)
        for i in 0..<10_000 {
            clock.advance(0.000_001)
            _ = table.take("10.0.\(i / 256).\(i % 256)", limit: limit)
        }
        #expect(table.count <= table.capacity)
        #expect(table.count >= table.capacity / 4)
        // After a minute every bucket has refilled: the next new key sweeps its shard clean.
        clock.advance(61)
        for i in 0..<10_000 { _ = table.take("fresh-\(i)", limit: limit) }
        #expect(table.count <= table.capacity)
        // A key that stays busy is not forgotten while the table is far from full.
        let small = BucketTable(capacity: 1024, clock: clock.read)
        #expect(small.take("busy", limit: limit) == nil)
        for i in 0..<100 { _ = small.take("other-\(i)", limit: limit) }
        #expect(small.take("busy", limit: limit) != nil)
    }

    /// A burst given as 0 is taken as 1: a bucket that can never hold a token would refuse every request.
    @Test func burstIsAtLeastOne() {
        let table = BucketTable(capacity: 64)
        let limit = RateLimit(requests: 5, seconds: 1, burst: 0)
        #expect(limit.burst == 1)
        #expect(table.take("a", limit: limit) == nil)
    }

    /// An unlimited rate never refuses and keeps no bucket.
    @Test func unlimitedKeepsNothing() {
        let table = BucketTable(capacity: 64)
        for _ in 0..<1000 { #expect(table.take("a", limit: .unlimited) == nil) }
        #expect(table.count == 0)
    }

    /// The connection limit left below the descriptor limit.
    @Test func derivedConnectionLimit() {
        #expect(RequestLimits.defaultMaxConnections(descriptorLimit: 1024, openDatabases: 64) == 1024 - 320)
        #expect(RequestLimits.defaultMaxConnections(descriptorLimit: 65536, openDatabases: 64) == 65536 - 6553)
        #expect(RequestLimits.defaultMaxConnections(descriptorLimit: 100, openDatabases: 64) == 16)
        #expect(RequestLimits.defaultMaxConnections(descriptorLimit: nil, openDatabases: 64) == Int.max)
    }

    /// The marker a refused request carries round-trips, and a forged one that is not a marker is ignored.
    @Test func markerRoundTrips() {
        let refusal = RequestLimiter.Refusal(scope: .user, retryAfter: 7)
        var fields = HTTPFields()
        fields[RequestLimiter.Refusal.field] = refusal.marker
        #expect(RequestLimiter.Refusal(marked: fields) == refusal)
        fields[RequestLimiter.Refusal.field] = "nonsense"
        #expect(RequestLimiter.Refusal(marked: fields) == nil)
    }

    /// The 429 in each API's error shape, with Retry-After.
    @Test func repliesInEachShape() throws {
        let refusal = RequestLimiter.Refusal(scope: .ip, retryAfter: 3)
        let database = refusal.reply(target: "/users.json?print=pretty")
        #expect(database.status.code == 429)
        #expect(database.headers[.retryAfter] == "3")
        #expect(String(buffer: database.body).hasPrefix("{\"error\":\"Too many requests"))
        let auth = refusal.reply(target: "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k")
        #expect(String(buffer: auth.body).contains("\"message\":\"TOO_MANY_ATTEMPTS_TRY_LATER\""))
        #expect(String(buffer: auth.body).contains("\"code\":429"))
        let storage = refusal.reply(target: "/v0/b/bucket/o/a.txt")
        #expect(String(buffer: storage.body).hasPrefix("{\"error\":{\"code\":429"))
    }
}
