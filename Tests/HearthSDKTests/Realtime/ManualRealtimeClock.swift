import Synchronization

@testable import Hearth

/// A clock that moves only when the test says so; it records every wait it was asked for.
final class ManualRealtimeClock: RealtimeClock {
    /// The wall clock at uptime zero.
    static let epochMilliseconds: Int64 = 1_700_000_000_000

    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var duration: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Duration.zero
        var sleepers: [Sleeper] = []
        var nextID = 0
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    var uptime: Duration { state.withLock { $0.now } }

    var millisecondsSince1970: Int64 {
        let now = uptime.components
        return Self.epochMilliseconds + now.seconds * 1000 + now.attoseconds / 1_000_000_000_000_000
    }

    /// The durations of the waits in progress, oldest first.
    var pendingSleeps: [Duration] { state.withLock { $0.sleepers.map(\.duration) } }

    func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.contains(id) { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, duration: duration, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                state.cancelled.insert(id)
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking the waits that are due.
    func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, up to 5 s) until the waits in progress satisfy `condition`.
    @discardableResult
    func waitForSleeps(_ condition: ([Duration]) -> Bool) async -> Bool {
        await eventually { condition(self.pendingSleeps) }
    }
}


