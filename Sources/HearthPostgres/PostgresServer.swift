import Foundation
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One PostgreSQL server shared by every store of a node: its connections, the threads that run
/// store transactions on them, and the schema.
///
/// Hearth's store protocols run a transaction as a synchronous closure (the rules read data while
/// a write is checked, inside the writer's transaction). Here each closure runs on a thread of the
/// server's own pool holding one connection, and each statement waits for its answer on that
/// thread. Measured on the 2-core test box: about 220 µs a statement this way, against 310–520 µs
/// through a `Task` hop per statement.
///
/// ```swift
/// let server = try await PostgresServer(location: PostgresLocation(url: url), logger: logger)
/// let factory = PostgresStoreFactory(server: server)
/// ```
public final class PostgresServer: Sendable {
    /// Where the server is.
    public let location: PostgresLocation
    let logger: Logger
    let group: any EventLoopGroup
    private let ownsGroup: Bool
    let threads: NIOThreadPool
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
    /// Connections kept open when idle; more are opened under load, up to one per thread.
    let maximumConnections: Int

    /// Connects once (so a wrong URL or password fails here, not at the first request) and creates or
    /// migrates the schema (see ``PostgresSchema``).
    ///
    /// - Parameters:
    ///   - location: the server and database.
    ///   - connections: how many transactions may run at once on this node (each holds a connection
    ///     and a thread while it runs).
    ///   - logger: for connection events; statements are not logged (they carry user data).
    public init(location: PostgresLocation, connections: Int = 16, logger: Logger) async throws {
        self.location = location
        self.logger = logger
        self.maximumConnections = max(1, connections)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.ownsGroup = true
        self.threads = NIOThreadPool(numberOfThreads: maximumConnections)
        threads.start()
        do {
            try await run { session in try PostgresSchema.migrate(session) }
        } catch {
            try? await shutdown()
            throw error
        }
    }

    /// Closes every connection and stops the threads; stores opened on this server fail afterwards.
    public func shutdown() async throws {
        let connections = idle.withLock { list in
            defer { list = [] }
            return list
        }
        for connection in connections { try? await connection.close() }
        try await threads.shutdownGracefully()
        if ownsGroup { try await group.shutdownGracefully() }
    }

    var configuration: PostgresConnection.Configuration {
        if location.host.hasPrefix("/") {
            return .init(
                unixSocketPath: location.host + "/.s.PGSQL.\(location.port)", username: location.username,
                password: location.password, database: location.database)
        }
        return .init(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: .disable)
    }

    /// A new connection, outside the pool (the change feed's listener holds one for good).
    func connect() async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                on: group.any(), configuration: configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger)
        } catch {
            throw PostgresStoreError(error)
        }
    }

    /// Runs `body` on one of the server's threads with a connection of its own, outside any
    /// transaction (the body begins and ends its own, see ``PostgresSession/transaction(_:_:)``).
    ///
    /// The closure need not escape: the thread lets go of it before the caller resumes.
    func run<R: Sendable>(_ body: (PostgresSession) throws -> R) async throws -> R {
        try await withoutActuallyEscaping(body) { body in
            let job = Job(body)
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                threads.submit { [self] state in
                    let result = job.perform(state == .active ? self : nil)
                    continuation.resume(with: result)
                }
            }
        }
    }

    /// A closure on its way to a thread. `perform` drops it before returning, so once the
    /// continuation resumes nothing holds it any more (what `withoutActuallyEscaping` checks).
    private final class Job<R>: @unchecked Sendable {
        // Unchecked: written by the caller before `submit`, then read and cleared once by the one
        // thread that runs the job (the thread pool's queue orders the two).
        private var body: ((PostgresSession) throws -> R)?

        init(_ body: @escaping (PostgresSession) throws -> R) { self.body = body }

        func perform(_ server: PostgresServer?) -> Result<R, any Error> {
            guard let work = body else { return .failure(PostgresStoreError(sqlState: nil, message: "job ran twice")) }
            body = nil
            guard let server else { return .failure(PostgresStoreError(sqlState: nil, message: "the PostgreSQL store was shut down")) }
            return Result { try server.runHere(work) }
        }
    }

    /// A pooled connection may have died while idle (the server restarted): a call whose connection
    /// broke before it sent COMMIT ran nothing that lasts, and runs once more on a new connection.
    private func runHere<R>(_ body: (PostgresSession) throws -> R) throws -> R {
        var attempt = 0
        while true {
            let session = try checkOut()
            defer { checkIn(session) }
            do {
                return try body(session)
            } catch {
                attempt += 1
                guard session.isBroken, !session.commitSent, attempt < 2 else { throw error }
            }
        }
    }

    private func checkOut() throws -> PostgresSession {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return PostgresSession(connection: connection, logger: logger) }
        }
        do {
            let connection = try PostgresConnection.connect(
                on: group.any(), configuration: configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger
            ).wait()
            return PostgresSession(connection: connection, logger: logger)
        } catch {
            throw PostgresStoreError(error)
        }
    }

    /// A session's connection goes back to the pool unless it broke or was left inside a transaction.
    private func checkIn(_ session: PostgresSession) {
        guard !session.connection.isClosed, !session.isBroken else {
            Self.discard(session.connection)
            return
        }
        let kept = idle.withLock { list in
            guard list.count < maximumConnections else { return false }
            list.append(session.connection)
            return true
        }
        if !kept { Self.discard(session.connection) }
    }

    /// Closes a connection without waiting for the goodbye. The connection is kept alive until it
    /// is closed (released earlier, postgres-nio treats it as leaked).
    static func discard(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}

extension PostgresServer {
    /// ``run(_:)`` for the few synchronous callers (listing namespaces): blocks the calling thread.
    func runBlocking<R: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> R) throws -> R {
        try threads.runIfActive(eventLoop: group.any()) { [self] in try runHere(body) }.wait()
    }
}

extension PostgresServer {
    /// Runs `body` while holding a cluster-wide lock named by `key` (a PostgreSQL advisory lock held
    /// by a transaction): nodes that start at once take turns, for example so that only the first
    /// creates a file in the folder they share and the others read it.
    public func whileHoldingLock<R: Sendable>(_ key: Int64, _ body: @Sendable () throws -> R) async throws -> R {
        try await run { session in
            try session.transaction(.readCommitted, retries: 0) {
                try session.execute("SELECT pg_advisory_xact_lock(\(key))")
                return try body()
            }
        }
    }
}
