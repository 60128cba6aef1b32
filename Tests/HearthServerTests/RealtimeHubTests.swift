import Foundation
import HearthCore
import HearthDatabase
@testable import HearthServer
import NIOCore
import Synchronization
import Testing

@Suite("Realtime hub fan-out")
struct RealtimeHubTests {
    /// What a sink saw: the sequences of the events it got, and whether it had to give up waiting to be let go.
    final class Recorder: Sendable {
        let sequences = Mutex<[UInt64]>([])
        let gaveUp = Mutex(false)
        let release = DispatchSemaphore(value: 0)

        /// A sink that blocks each delivery until ``release`` is signalled (at most 30 s: a loaded machine may starve the test for seconds).
        var blockingSink: RealtimeHub.Sink {
            RealtimeHub.Sink(
                yield: { delivery in
                    if self.release.wait(timeout: .now() + 30) == .timedOut { self.gaveUp.withLock { $0 = true } }
                    if case .event(let sequence, _) = delivery { self.sequences.withLock { $0.append(sequence) } }
                    return true
                },
                finish: {})
        }
    }

    /// A plain realtime listener at `path` that delivers into `recorder`'s blocking sink.
    @discardableResult
    static func listen(_ hub: RealtimeHub, at path: String, _ recorder: Recorder) -> Int {
        hub.register(
            location: Path(path), encoding: .realtime, isQuery: false, checksRules: false, dataDependent: false,
            sink: recorder.blockingSink)
    }

    static func change(_ sequence: UInt64, at path: String) -> Change {
        Change(sequence: sequence, path: Path(path), kind: .put(.leaf(.int(Int64(sequence)))))
    }

    @Test("the writer's didCommit returns before the fan-out; published() waits for it, in commit order")
    func fanOutAfterCommit() async throws {
        let hub = RealtimeHub()
        let recorder = Recorder()
        Self.listen(hub, at: "a", recorder)
        // The sink blocks until released: a fan-out inside didCommit would hold this call for 5 s and give up.
        hub.didCommit([Self.change(1, at: "a/x")])
        hub.didCommit([Self.change(2, at: "a/y"), Self.change(3, at: "b")])
        let waited = Mutex(false)
        let waiter = Task {
            await hub.published()
            waited.withLock { $0 = true }
        }
        for _ in 0..<6000 where hub.waiting == 0 && !waited.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!waited.withLock { $0 }, "published() returned while the fan-out was still blocked")
        recorder.release.signal()
        recorder.release.signal()
        await waiter.value
        #expect(waited.withLock { $0 })
        #expect(!recorder.gaveUp.withLock { $0 })
        #expect(recorder.sequences.withLock { $0 } == [1, 2])  // `b` is not under `a`
    }

    @Test("a writer far ahead of the fan-out waits in backpressure() until it is half the limit behind")
    func backlogBound() async throws {
        let hub = RealtimeHub()
        let recorder = Recorder()
        Self.listen(hub, at: "a", recorder)
        let limit = RealtimeHub.maxBacklog
        for seq in 1...limit { hub.didCommit([Self.change(seq, at: "a")]) }
        await hub.backpressure()  // at most `limit` batches behind: no wait
        hub.didCommit([Self.change(limit + 1, at: "a")])
        hub.didCommit([Self.change(limit + 2, at: "a")])
        let waited = Mutex(false)
        let writer = Task {
            await hub.backpressure()
            waited.withLock { $0 = true }
        }
        for _ in 0..<6000 where hub.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(hub.waiting == 1)
        #expect(!waited.withLock { $0 }, "backpressure() returned while the fan-out was 66 batches behind")
        // 66 queued: the writer may go on once 66 - 32 = 34 are out. 33 are not enough.
        for _ in 0..<(limit / 2 + 1) { recorder.release.signal() }
        for _ in 0..<6000 where recorder.sequences.withLock({ $0.count }) < Int(limit / 2 + 1) {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(20))  // room for a wrongly early resume to show
        #expect(recorder.sequences.withLock { $0.count } == Int(limit / 2 + 1))
        #expect(!waited.withLock { $0 }, "backpressure() returned while the fan-out was 33 batches behind")
        recorder.release.signal()
        await writer.value
        for _ in 0..<(limit / 2) { recorder.release.signal() }
        await hub.published()
        #expect(recorder.sequences.withLock { $0 } == Array(1...(limit + 2)))
        #expect(!recorder.gaveUp.withLock { $0 })
    }

    @Test("with nobody listening nothing is queued, and published() returns at once")
    func idle() async {
        let hub = RealtimeHub()
        hub.didCommit([Self.change(1, at: "a")])
        await hub.published()
        let recorder = Recorder()
        let id = Self.listen(hub, at: "a", recorder)
        recorder.release.signal()
        hub.didCommit([Self.change(2, at: "a")])
        await hub.published()
        #expect(recorder.sequences.withLock { $0 } == [2])
        hub.unregister(id: id, location: Path("a"))
        #expect(hub.listenerCount == 0)
    }
}
