import HearthCore
import HearthStore
public import Logging
import NIOCore
import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// Carries every namespace's commits from any node to this node's listeners, through PostgreSQL
/// alone: each write transaction stores its changes in `hearth_changes` and sends a
/// `NOTIFY hearth_changes '<sequence> <namespace>'`, delivered at commit. The feed listens, reads
/// the rows it has not delivered yet, and hands them to each open namespace's hub in sequence order.
///
/// A node's own commits go to its listeners straight from its writer (no round trip) when they
/// are next in order; the notification for them is then a no-op. A gap (another node committed in
/// between) is filled from the change log before anything later is delivered, so every listener
/// sees one order, the commit order, exactly once. When the listening connection drops, the feed
/// reconnects and reads every open namespace's log from its last delivered sequence, so nothing
/// committed meanwhile is missed. Run it in the server's service group.
public final class PostgresChangeFeed: Service, Sendable {
    let server: PostgresServer
    let logger: Logger
    private let deliveries = Mutex<[String: SequencedDelivery]>([:])
    private let settingsReloads = Mutex<[String: @Sendable () async -> Void]>([:])
    private let wake: AsyncStream<String>.Continuation
    private let wakes: AsyncStream<String>
    /// How long to wait before reconnecting the listener after it failed.
    let retryDelay: Duration
    /// How long the change log keeps a commit: the longest a node's listening connection may be
    /// lost before its listeners must read everything again instead of catching up.
    public let retention: Duration
    /// How often ``run()`` trims the change log.
    let trimInterval: Duration

    /// A feed for the stores of `server`; it does nothing until ``run()``. The change log keeps
    /// commits for `retention` (10 minutes by default) and is trimmed every `trimInterval`.
    public init(
        server: PostgresServer, retryDelay: Duration = .milliseconds(500), retention: Duration = .seconds(600),
        trimInterval: Duration = .seconds(60), logger: Logger
    ) {
        self.server = server
        self.logger = logger
        self.retryDelay = retryDelay
        self.retention = retention
        self.trimInterval = trimInterval
        (wakes, wake) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    func follow(_ namespace: String, from sequence: UInt64, delivering hub: any ChangeObserver) -> any ChangeObserver {
        let delivery = SequencedDelivery(namespace: namespace, delivered: sequence, inner: hub, feed: self)
        deliveries.withLock { $0[namespace] = delivery }
        return delivery
    }

    func stopFollowing(_ namespace: String) {
        _ = deliveries.withLock { $0.removeValue(forKey: namespace) }
        _ = settingsReloads.withLock { $0.removeValue(forKey: namespace) }
    }

    func followSettings(_ namespace: String, _ reload: @escaping @Sendable () async -> Void) {
        settingsReloads.withLock { $0[namespace] = reload }
    }

    /// Asks the fetch loop to fill `namespace` up to what the log holds.
    func needsFetch(_ namespace: String) { wake.yield(namespace) }

    /// Listens until cancelled (reconnecting after failures) and fetches the log rows that notices
    /// and gaps ask for.
    /// Ends on graceful shutdown; started first in the server's group, it is stopped last, after
    /// the listeners it feeds are gone.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen() }
                group.addTask { await self.fetchLoop() }
                group.addTask { await self.trimLoop() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                let connection = try await server.connect()
                do {
                    try await withTaskCancellationHandler {
                        try await receive(on: connection)
                    } onCancel: {
                        PostgresServer.discard(connection)
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                logger.warning("change feed lost its connection; reconnecting", metadata: ["hearth.error": "\(error)"])
            }
            try? await Task.sleep(for: retryDelay)
        }
    }

    private func receive(on connection: PostgresConnection) async throws {
        try await connection.listen(on: ChangeNotice.channel) { notices in
            // Everything committed while nobody listened: the notices of those commits are lost, so
            // nothing says how far the log reaches; each namespace reads it until a read comes back short.
            for (name, delivery) in deliveries.withLock({ Array($0) }) {
                delivery.checkLog()
                needsFetch(name)
            }
            for reload in settingsReloads.withLock({ Array($0.values) }) { await reload() }
            for try await notification in notices {
                switch ChangeNotice(notification.payload) {
                case .changes(let namespace, let sequence):
                    let delivery = deliveries.withLock { $0[namespace] }
                    if delivery?.noticed(sequence) == true { needsFetch(namespace) }
                case .settings(let namespace):
                    await settingsReloads.withLock({ $0[namespace] })?()
                case nil:
                    continue
                }
            }
        }
    }

    /// Rows read from the change log at a time.
    static let fetchLimit = 1000

    private func fetchLoop() async {
        for await name in wakes {
            guard let delivery = deliveries.withLock({ $0[name] }) else { continue }
            var failures = 0
            while let (after, check) = delivery.wanted() {
                do {
                    let (lostThrough, changes) = try await server.run { session in try Self.read(name, after: after, in: session) }
                    if changes.count < Self.fetchLimit { delivery.checked(check) }
                    if let lostThrough {
                        logger.warning(
                            "the change log no longer holds commits this node has not delivered; its listeners read everything again",
                            metadata: ["hearth.ns": "\(name)", "hearth.sequence": "\(after + 1)...\(lostThrough)"])
                        delivery.lost(through: lostThrough)
                    }
                    if changes.isEmpty && lostThrough == nil { break }
                    delivery.deliver(fetched: changes)
                    await delivery.backpressure()
                    failures = 0
                } catch {
                    failures += 1
                    logger.warning("change feed cannot read the change log", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
                    // A pending read stays pending: the next notice, or the listener's reconnect, asks again.
                    if failures > 3 || Task.isCancelled { break }
                    try? await Task.sleep(for: retryDelay)
                }
            }
        }
    }

    /// The log's rows of `namespace` after `after` (at most ``fetchLimit``), and the last sequence
    /// of a run of commits right after `after` that the log no longer holds (it was trimmed), if any.
    static func read(_ namespace: String, after: UInt64, in session: PostgresSession) throws -> (lostThrough: UInt64?, [Change]) {
        func rows() throws -> [Change] {
            try session.query(
                "SELECT seq, body FROM hearth_changes WHERE ns = \(namespace) AND seq > \(Int64(after)) ORDER BY seq LIMIT \(fetchLimit)"
            ).map { row in
                let (seq, body) = try row.decode((Int64, ByteBuffer).self)
                return try ChangeCoding.decode(Array(body.readableBytesView), sequence: UInt64(seq))
            }
        }
        let changes = try rows()
        if let first = changes.first {
            return (first.sequence > after + 1 ? first.sequence - 1 : nil, changes)
        }
        // Nothing after `after`: either nothing was committed since, or it was trimmed. Commits take the
        // namespace's sequence in commit order, so every commit up to a sequence read first is visible to
        // the read that follows it; what it does not find is gone.
        let top = try session.query("SELECT seq FROM hearth_namespaces WHERE ns = \(namespace)").first?.decode(Int64.self) ?? 0
        guard UInt64(max(top, 0)) > after else { return (nil, []) }
        let again = try rows()
        if let first = again.first {
            return (first.sequence > after + 1 ? first.sequence - 1 : nil, again)
        }
        return (UInt64(top), [])
    }

    /// Deletes the change log's rows older than ``retention`` (every namespace's, or only
    /// `namespace`'s); returns how many. Any node may run it: the rows are only read by nodes catching
    /// up after a lost connection, and a node that finds its next rows gone makes its listeners read
    /// everything again.
    @discardableResult
    public func trimLog(namespace: String? = nil) async throws -> Int {
        let seconds = Double(retention.components.seconds) + Double(retention.components.attoseconds) / 1e18
        return try await server.run { session in
            let rows = if let namespace {
                try session.query(
                    "WITH gone AS (DELETE FROM hearth_changes WHERE ns = \(namespace) AND committed_at < now() - make_interval(secs => \(seconds)) RETURNING 1) SELECT count(*) FROM gone")
            } else {
                try session.query(
                    "WITH gone AS (DELETE FROM hearth_changes WHERE committed_at < now() - make_interval(secs => \(seconds)) RETURNING 1) SELECT count(*) FROM gone")
            }
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    private func trimLoop() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: trimInterval)
            } catch {
                return
            }
            do {
                try await trimLog()
            } catch {
                logger.warning("change feed cannot trim the change log", metadata: ["hearth.error": "\(error)"])
            }
        }
    }
}

/// One namespace's delivery: forwards changes to the hub strictly in sequence order, once each,
/// whether they come from this node's writer or from the change log.
final class SequencedDelivery: ChangeObserver, Sendable {
    let namespace: String
    private let inner: any ChangeObserver
    private let feed: PostgresChangeFeed

    private struct State {
        /// The last sequence number delivered to the hub.
        var delivered: UInt64
        /// The highest sequence number known to be committed.
        var known: UInt64
        /// This node's own commits that arrived ahead of a gap, by sequence.
        var held: [UInt64: Change] = [:]
        /// Bumped when the log may hold commits nobody noticed (the listening connection was
        /// re-established); the log is read until `checked` catches up.
        var checkRequested = 0
        var checked = 0
    }

    private let state: Mutex<State>

    init(namespace: String, delivered: UInt64, inner: any ChangeObserver, feed: PostgresChangeFeed) {
        self.namespace = namespace
        self.inner = inner
        self.feed = feed
        self.state = Mutex(State(delivered: delivered, known: delivered))
    }

    /// This node's writer committed `changes` (contiguous, ascending).
    func didCommit(_ changes: [Change]) {
        let gap = state.withLock { s -> Bool in
            if let last = changes.last { s.known = max(s.known, last.sequence) }
            for change in changes where change.sequence > s.delivered { s.held[change.sequence] = change }
            drain(&s)
            return !s.held.isEmpty
        }
        if gap { feed.needsFetch(namespace) }
    }

    func backpressure() async { await inner.backpressure() }

    /// A notification said `sequence` is committed; true when something is left to fetch.
    func noticed(_ sequence: UInt64) -> Bool {
        state.withLock { s in
            s.known = max(s.known, sequence)
            return s.known > s.delivered
        }
    }

    /// The log may hold commits whose notices were lost: read it even though nothing known is missing.
    func checkLog() {
        state.withLock { $0.checkRequested += 1 }
    }

    /// A read that started after the `check`th request reached the end of the log.
    func checked(_ check: Int) {
        state.withLock { s in s.checked = max(s.checked, check) }
    }

    /// The sequence to read the log after (with the check request that read answers), or nil when
    /// everything known was delivered and no check is pending.
    func wanted() -> (after: UInt64, check: Int)? {
        state.withLock { s in
            s.known > s.delivered || s.checkRequested > s.checked ? (s.delivered, s.checkRequested) : nil
        }
    }

    /// The log no longer holds the commits after the last delivered one through `sequence`: the hub
    /// is told its listeners must read everything again, and delivery goes on after `sequence`.
    func lost(through sequence: UInt64) {
        state.withLock { s in
            guard sequence > s.delivered else { return }
            s.delivered = sequence
            s.known = max(s.known, sequence)
            s.held = s.held.filter { $0.key > sequence }
            inner.changesLost()
            drain(&s)
        }
    }

    /// Changes read from the log, ascending from `delivered + 1`.
    func deliver(fetched changes: [Change]) {
        state.withLock { s in
            if let last = changes.last { s.known = max(s.known, last.sequence) }
            for change in changes where change.sequence > s.delivered && s.held[change.sequence] == nil {
                s.held[change.sequence] = change
            }
            drain(&s)
        }
    }

    /// Hands the hub every held change that is next in order. Runs under the lock, so two sources
    /// never deliver at once or out of order; the hub's `didCommit` only queues work and returns.
    private func drain(_ s: inout State) {
        var batch: [Change] = []
        while let next = s.held.removeValue(forKey: s.delivered + 1) {
            batch.append(next)
            s.delivered += 1
        }
        s.held = s.held.filter { $0.key > s.delivered }
        if !batch.isEmpty { inner.didCommit(batch) }
    }
}
