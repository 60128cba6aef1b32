import Synchronization

/// A one-shot result that may be delivered before or after someone starts waiting for it.
///
/// The engine (an actor) completes it synchronously; a caller awaits it without racing the
/// engine's bookkeeping.
final class Completion: Sendable {
    private struct State {
        var result: Result<Void, DatabaseError>?
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private let state = Mutex(State())

    func succeed() { finish(.success(())) }

    func fail(_ error: DatabaseError) { finish(.failure(error)) }

    private func finish(_ result: Result<Void, DatabaseError>) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { s in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    func wait() async throws(DatabaseError) {
        do {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let ready: Result<Void, DatabaseError>? = state.withLock { s in
                    if let r = s.result { return r }
                    s.waiter = c
                    return nil
                }
                if let ready { c.resume(with: ready.mapError { $0 as any Error }) }
            }
        } catch let e as DatabaseError {
            throw e
        } catch {
            throw DatabaseError(code: .server, path: "/", message: "Unexpected failure", cause: error)
        }
    }
}

/// The server's clock as this client estimates it: the local clock plus the offset reported by
/// the last handshake.
final class ServerClock: Sendable {
    private let localNow: @Sendable () -> Int64
    private let offsetMillis = Mutex<Int64>(0)

    init(now: @escaping @Sendable () -> Int64) {
        self.localNow = now
    }

    var offset: Int64 {
        get { offsetMillis.withLock { $0 } }
        set { offsetMillis.withLock { $0 = newValue } }
    }

    /// Estimated server time in milliseconds since 1970.
    var serverNow: Int64 { localNow() + offset }
}
