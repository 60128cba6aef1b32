public import Foundation
import HearthCore
import Synchronization

/// A ``RealtimeConnection`` to an ``InMemoryDatabaseServer``: the test double for the socket.
///
/// Like the real connection it waits while offline (requests issued then are performed once
/// back online), keeps its listens across a reconnect, and the server runs its onDisconnect
/// operations when it goes offline or closes.
final class InMemoryRealtimeConnection: RealtimeConnection {
    let server: InMemoryDatabaseServer
    let id: Int
    let events: AsyncStream<RealtimeEvent>
    private let continuation: AsyncStream<RealtimeEvent>.Continuation

    private struct State {
        var opened = false
        var online = true
        var closed = false
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Mutex(State())

    init(server: InMemoryDatabaseServer) {
        self.server = server
        self.id = server.makeClientID()
        (events, continuation) = AsyncStream.makeStream(of: RealtimeEvent.self)
    }

    func open() async {
        state.withLock { $0.opened = true }
        await reconcile()
    }

    func close() async {
        let waiters = state.withLock { s in
            s.closed = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(throwing: RealtimeError.closed) }
        await server.detach(id, forget: true)
        continuation.finish()
    }

    func setOnline(_ online: Bool) async {
        state.withLock { $0.online = online }
        await reconcile()
    }

    func setAuthToken(_ token: String?) async {}

    private func reconcile() async {
        let (up, closed) = state.withLock { ($0.opened && $0.online && !$0.closed, $0.closed) }
        guard !closed else { return }
        if up {
            await server.attach(id, continuation: continuation)
            let waiters = state.withLock { s in
                defer { s.waiters = [] }
                return s.waiters
            }
            for w in waiters { w.resume() }
        } else {
            await server.detach(id, forget: false)
        }
    }

    /// Performs `body` once connected; retries when the connection dropped in between.
    private func whenConnected<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            let ready = state.withLock { s -> Bool? in
                if s.closed { return nil }
                return s.opened && s.online
            }
            guard let ready else { throw RealtimeError.closed }
            if ready, await server.isAttached(id) {
                do {
                    return try await body()
                } catch let error as RealtimeError where error == .notAttached {
                    continue
                }
            }
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { s -> Result<Void, RealtimeError>? in
                    if s.closed { return .failure(.closed) }
                    if s.opened && s.online { return .success(()) }
                    s.waiters.append(c)
                    return nil
                }
                if let resumeNow { c.resume(with: resumeNow.mapError { $0 as any Error }) }
            }
            // Give `reconcile` the time to attach before trying again.
            if await !server.isAttached(id) { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    func listen(path: Path, query: Query?, tag: Int?, hash: String) async throws -> ListenAcknowledgement {
        try await whenConnected { try await server.listen(id, path: path, query: query, tag: tag) }
        return ListenAcknowledgement()
    }

    func unlisten(path: Path, query: Query?, tag: Int?) async {
        await server.unlisten(id, path: path, query: query, tag: tag)
    }

    func get(path: Path, query: Query?) async throws -> JSONValue {
        try await whenConnected { try await server.get(id, path: path, query: query) }
    }

    func put(path: Path, data: JSONValue, hash: String?, receipt: Int64?) async throws {
        try await whenConnected { try await server.put(id, path: path, data: data, hash: hash) }
        // The server pushed the write to this client's listens before returning.
        if let receipt { continuation.yield(.writeAcknowledged(receipt: receipt)) }
    }

    func merge(path: Path, data: [JSONMember], receipt: Int64?) async throws {
        try await whenConnected { try await server.merge(id, path: path, data: data) }
        if let receipt { continuation.yield(.writeAcknowledged(receipt: receipt)) }
    }

    func onDisconnectPut(path: Path, data: JSONValue) async throws {
        try await whenConnected {
            try await server.onDisconnect(id, path: path, operation: .put(path, data))
        }
    }

    func onDisconnectMerge(path: Path, data: [JSONMember]) async throws {
        try await whenConnected {
            try await server.onDisconnect(id, path: path, operation: .merge(path, data))
        }
    }

    func onDisconnectCancel(path: Path) async throws {
        try await whenConnected { try await server.onDisconnect(id, path: path, operation: nil) }
    }
}

extension Database {
    /// A database backed by an in-process server: no network, same behaviour (optimistic local
    /// events, queries, transactions, onDisconnect, offline queue). For tests and previews.
    ///
    /// ```swift
    /// let db = Database.inMemory()
    /// let repository = MessageRepository(database: db)   // code under test
    /// ```
    /// - Parameters:
    ///   - server: share one server between several databases to test multi-client behaviour.
    ///   - persistence: a directory for the cache and write queue, to test restarts.
    public static func inMemory(server: InMemoryDatabaseServer = InMemoryDatabaseServer(), persistence: URL? = nil) -> Database {
        Database(options: nil, connection: InMemoryRealtimeConnection(server: server), persistence: persistence)
    }
}
