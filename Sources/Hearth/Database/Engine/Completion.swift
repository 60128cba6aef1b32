import Synchronization

/// A one-shot result that may be delivered before or after anyone starts waiting for it.
///
/// The engine (an actor) and the connection complete it synchronously; callers await it without
/// racing their bookkeeping. Any number of callers may wait; the first result delivered wins.
final class OneShot<Failure: Error>: Sendable {
    private struct State {
        var result: Result<Void, Failure>?
        var waiters: [CheckedContinuation<Result<Void, Failure>, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether a result has been delivered.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    func succeed() { finish(.success(())) }

    func fail(_ error: Failure) { finish(.failure(error)) }

    func finish(_ result: Result<Void, Failure>) {
        let waiters = state.withLock { s -> [CheckedContinuation<Result<Void, Failure>, Never>] in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    func wait() async throws(Failure) {
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<Void, Failure>, Never>) in
            let ready: Result<Void, Failure>? = state.withLock { s in
                if let r = s.result { return r }
                s.waiters.append(c)
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
        try result.get()
    }
}

/// What a caller of the engine waits for: a write's answer, a view's first data.
typealias Completion = OneShot<DatabaseError>

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
