import NIOCore
import Synchronization

/// The request and connection limits (`limits` in the config file) and the state they share across the server:
/// the bucket tables, the open-connection count and the counters `/metrics` shows.
///
/// A copy shares its state with the original (the state is a reference), so the HTTP pipeline, the realtime
/// sessions and `/metrics` of one server see the same buckets. Build one `RequestLimits` per server.
///
/// ```swift
/// var configuration = ServerConfiguration(adminToken: "s3cret")
/// configuration.limits.ip = try RateLimit(parsing: "100/s,burst=200")
/// configuration.limits.maxConnections = 4000
/// ```
public struct RequestLimits: Sendable {
    /// Requests per client address (after `--trusted-proxies`); unlimited by default.
    public var ip: RateLimit = .unlimited
    /// Requests per signed-in user (the uid of a valid ID token); unlimited by default.
    public var user: RateLimit = .unlimited
    /// Most connections (HTTP and WebSocket) open at once; nil derives it from the descriptor limit
    /// (``defaultMaxConnections(descriptorLimit:openDatabases:)``).
    public var maxConnections: Int?
    /// Most listens one realtime connection may hold.
    public var maxListenersPerConnection = 10_000
    /// Buckets and counters shared by every copy.
    let state = LimitState()

    /// No rate limits, the derived connection limit and 10,000 listens per connection.
    public init() {}

    /// Whether a request rate is limited at all (otherwise no handler is installed and nothing is counted).
    var limitsRequests: Bool { ip.isLimited || user.isLimited }

    /// The connection limit for a process allowed `descriptorLimit` open files (nil: unknown, unlimited), leaving
    /// room for `openDatabases` databases (a SQLite database holds up to 3 descriptors: the file, its WAL and
    /// shared memory), storage files being read or written, and the process's own: the larger of a tenth of the
    /// limit and 4 per database plus 64, and at least 16 connections.
    public static func defaultMaxConnections(descriptorLimit: Int?, openDatabases: Int) -> Int {
        guard let limit = descriptorLimit, limit > 0 else { return Int.max }
        let reserve = max(limit / 10, openDatabases * 4 + 64)
        return max(16, limit - reserve)
    }

    /// The connection limit in force: ``maxConnections``, or the derived one (`openDatabases`: `maxOpenNamespaces`).
    func resolvedMaxConnections(openDatabases: Int) -> Int {
        if let maxConnections, maxConnections > 0 { return maxConnections }
        let cached = state.derivedMaxConnections.load(ordering: .relaxed)
        if cached > 0 { return cached }
        let derived = Self.defaultMaxConnections(descriptorLimit: ProcessStats.descriptorLimit(), openDatabases: openDatabases)
        state.derivedMaxConnections.store(derived, ordering: .relaxed)
        return derived
    }

    /// Counts `channel` as open, or — when ``maxConnections`` are open already — closes it at once and counts the
    /// refusal. On the channel's event loop, before any handler reads from it.
    func admit(_ channel: any Channel, openDatabases: Int) -> Bool {
        let max = resolvedMaxConnections(openDatabases: openDatabases)
        let state = self.state
        if state.openConnections.wrappingAdd(1, ordering: .relaxed).oldValue >= max {
            state.openConnections.wrappingSubtract(1, ordering: .relaxed)
            state.refusedConnections.wrappingAdd(1, ordering: .relaxed)
            channel.close(promise: nil)
            return false
        }
        channel.closeFuture.whenComplete { _ in state.openConnections.wrappingSubtract(1, ordering: .relaxed) }
        return true
    }
}

/// What every copy of one ``RequestLimits`` shares.
final class LimitState: Sendable {
    /// Buckets by client address.
    let addresses = BucketTable()
    /// Buckets by uid.
    let users = BucketTable()
    /// Requests refused for their address.
    let limitedByAddress = Atomic<Int>(0)
    /// Requests refused for their user.
    let limitedByUser = Atomic<Int>(0)
    /// Connections closed at accept for being over the maximum.
    let refusedConnections = Atomic<Int>(0)
    /// Connections open now (counted only while the limit is checked).
    let openConnections = Atomic<Int>(0)
    /// Listens refused for being over a connection's maximum.
    let refusedListens = Atomic<Int>(0)
    /// The derived connection limit, once computed (0: not yet).
    let derivedMaxConnections = Atomic<Int>(0)
}

/// The connection limit where connections are accepted.
extension RealtimeController {
    /// Counts a newly accepted connection against the server's `limits.maxConnections`, or closes it (see
    /// ``RequestLimits/admit(_:openDatabases:)``).
    func admit(_ channel: any Channel) -> Bool {
        let configuration = database.configuration
        return configuration.limits.admit(channel, openDatabases: configuration.maxOpenNamespaces)
    }
}
