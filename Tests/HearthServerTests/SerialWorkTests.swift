@testable import HearthServer
import Synchronization
import Testing

@Suite("Serial work on demand")
struct SerialWorkTests {
    final class Log: Sendable {
        let state = Mutex<(items: [Int], running: Int, maxRunning: Int)>(([], 0, 0))
    }

    @Test("items are handled in order, one at a time, across idle spells")
    func orderAndExclusion() async throws {
        let log = Log()
        let work = SerialWork<Int>(limit: 1000) { item in
            log.state.withLock { $0.running += 1; $0.maxRunning = max($0.maxRunning, $0.running) }
            if item % 7 == 0 { try? await Task.sleep(for: .milliseconds(1)) }
            log.state.withLock { $0.items.append(item); $0.running -= 1 }
        }
        for i in 0..<200 { #expect(work.add(i)) }
        // A quiet spell: the task ends, and the next item starts a new one.
        for _ in 0..<500 where log.state.withLock({ $0.items.count }) < 200 { try await Task.sleep(for: .milliseconds(5)) }
        for i in 200..<300 { #expect(work.add(i)) }
        for _ in 0..<500 where log.state.withLock({ $0.items.count }) < 300 { try await Task.sleep(for: .milliseconds(5)) }
        let (items, _, maxRunning) = log.state.withLock { $0 }
        #expect(items == Array(0..<300))
        #expect(maxRunning == 1)
    }

    @Test("a full queue and a finished one refuse items; what was queued is still handled")
    func limitAndFinish() async throws {
        let gate = Mutex(false)
        let handled = Mutex<[Int]>([])
        let work = SerialWork<Int>(limit: 3) { item in
            while !gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
            handled.withLock { $0.append(item) }
        }
        #expect(work.add(1))  // taken by the task, which waits on the gate
        for _ in 0..<200 where work.waiting > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(work.add(2) && work.add(3) && work.add(4))
        #expect(!work.add(5))  // three waiting: full
        work.finish()
        gate.withLock { $0 = true }
        for _ in 0..<500 where handled.withLock({ $0.count }) < 4 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(!work.add(6))
        try await Task.sleep(for: .milliseconds(20))
        #expect(handled.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test("handledAll returns once everything queued before it was handled, not what came after")
    func handledAll() async throws {
        let gate = Mutex(false)
        let handled = Mutex<[Int]>([])
        let work = SerialWork<Int>(limit: 100) { item in
            while item == 1, !gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
            handled.withLock { $0.append(item) }
        }
        await work.handledAll()  // nothing queued: returns at once
        for i in 1...3 { #expect(work.add(i)) }
        let waiter = Task {
            await work.handledAll()
            return handled.withLock { $0 }
        }
        try await Task.sleep(for: .milliseconds(30))
        let early = handled.withLock { $0 }
        #expect(early.isEmpty)  // item 1 holds the queue
        gate.withLock { $0 = true }
        #expect(work.add(4))
        let seen = await waiter.value
        #expect(seen.prefix(3) == [1, 2, 3])
    }
}
