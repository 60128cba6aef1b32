import Foundation
import HearthCore
import Synchronization

/// A Realtime Database: references, queries, offline cache and the queue of pending writes.
///
/// ```swift
/// let db = Database.inMemory()            // or the app's database, connected to a Hearth server
/// let ref = db.reference("users/alice")
/// try await ref.setValue(User(name: "Alice"))
/// for try await snapshot in ref.snapshots() {
///     print(try snapshot.value(as: User.self))
/// }
/// ```
///
/// Writes show up in local listeners immediately and are sent to the server one at a time in the
/// order they were made. With a persistence directory, pending writes survive a restart (they are
/// re-sent on the next start) and reads made while offline are answered from the cache
/// (``DataSnapshot/isFromCache``). On-disk bounds: a 10 MiB cache (trimmed to active listens, then
/// dropped, when larger) and at most 10,000 pending writes or 16 MiB of pending JSON (further
/// writes throw ``DatabaseError/Code/writeQueueFull``).
public final class Database: Sendable {
    let engine: SyncEngine
    let clock: ServerClock
    let pushIDs: PushIDGenerator
    let connection: any RealtimeConnection
    /// The run loop (server events, ordered writes, listens); cancelled by `close()` or deinit.
    private let runner: Mutex<Task<Void, Never>?>

    /// Creates a database on a realtime connection.
    ///
    /// - Parameters:
    ///   - options: the app's options (the namespace is the connection's concern).
    ///   - connection: the realtime connection (the socket, or the in-memory engine).
    ///   - persistence: a directory this database owns for its cache and write queue; nil keeps
    ///     everything in memory.
    ///   - now: the local clock in milliseconds since 1970 (injected by tests).
    init(
        options: HearthOptions?, connection: any RealtimeConnection, persistence: URL?,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.connection = connection
        self.clock = ServerClock(now: now)
        self.pushIDs = PushIDGenerator()
        self.engine = SyncEngine(
            connection: connection, clock: clock,
            store: persistence.map { PersistenceStore(directory: $0, limits: PersistenceLimits()) })
        let engine = self.engine
        self.runner = Mutex(Task { await engine.run() })
    }

    deinit {
        runner.withLock { $0?.cancel() }
    }

    /// Whether the realtime connection is up (`true`) or not, first now and then at every change —
    /// what Firebase offers as `.info/connected`. Writes made while `false` are queued.
    ///
    /// ```swift
    /// for await online in database.connectionStates() { banner.isHidden = online }
    /// ```
    public func connectionStates() async -> AsyncStream<Bool> {
        await engine.watchConnection()
    }

    /// A reference to the root.
    public func reference() -> DatabaseReference {
        DatabaseReference(database: self, location: .root)
    }

    /// A reference to a slash-separated path (`"users/alice"`); keys are checked when used.
    public func reference(_ path: String) -> DatabaseReference {
        DatabaseReference(database: self, location: Path(path))
    }

    /// Disconnects (running the server's onDisconnect operations); listens and pending writes are
    /// kept and resume with ``goOnline()``.
    public func goOffline() async {
        await engine.setOnline(false)
    }

    /// Reconnects after ``goOffline()``.
    public func goOnline() async {
        await engine.setOnline(true)
    }

    /// The estimated difference between the server's clock and this device's (server − local).
    public var serverTimeOffset: Duration { .milliseconds(clock.offset) }

    /// Stops this database: observers finish, pending writes stay in the persistent queue (if any)
    /// for the next start, and the connection closes.
    public func close() async {
        await engine.shutdown()
        await connection.close()
        let task = runner.withLock { t -> Task<Void, Never>? in
            defer { t = nil }
            return t
        }
        task?.cancel()
        await task?.value
    }

    /// A new push id for the current (estimated server) time.
    func makePushID() -> String {
        pushIDs.next(millis: clock.serverNow)
    }
}
