import DequeModule
import NIOCore
import Synchronization

/// Runs realtime outboxes' drains on their event loop, one job for every outbox queued while the
/// previous job was pending: a change pushed to 10,000 connections costs a handful of event-loop
/// jobs instead of 10,000.
final class EventLoopDrainQueue: Sendable {
    private struct Queue {
        var scheduled = false
        /// Outboxes waiting for a drain, in order.
        var outboxes: Deque<RealtimeOutbox> = []
    }

    /// Outboxes drained per turn of the loop. One write to 10,000 listeners queues ~5,000 outboxes per loop; drained
    /// in one go (~45 ms here) they would hold back every other task and read of that loop, such as the writer's
    /// own HTTP response.
    static let sliceSize = 256

    let eventLoop: any EventLoop
    private let queue = Mutex(Queue())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Drains `outbox` on the event loop soon.
    func schedule(_ outbox: RealtimeOutbox) {
        let first = queue.withLock { q -> Bool in
            q.outboxes.append(outbox)
            defer { q.scheduled = true }
            return !q.scheduled
        }
        if first { eventLoop.execute { self.run() } }
    }

    /// On the event loop: drains up to ``sliceSize`` queued outboxes in order, then, if more are queued, schedules
    /// itself again behind whatever else the loop has to do (other channels' I/O and tasks run in between).
    private func run() {
        let batch = queue.withLock { q -> [RealtimeOutbox] in
            let count = min(q.outboxes.count, Self.sliceSize)
            defer { q.outboxes.removeFirst(count) }
            return Array(q.outboxes.prefix(count))
        }
        for outbox in batch { outbox.drain() }
        let more = queue.withLock { q -> Bool in
            q.scheduled = !q.outboxes.isEmpty
            return q.scheduled
        }
        if more { eventLoop.execute { self.run() } }
    }
}

/// One ``EventLoopDrainQueue`` per event loop.
final class EventLoopDrains: Sendable {
    private let queues = Mutex<[ObjectIdentifier: EventLoopDrainQueue]>([:])

    func queue(for eventLoop: any EventLoop) -> EventLoopDrainQueue {
        queues.withLock { q in
            let id = ObjectIdentifier(eventLoop)
            if let queue = q[id] { return queue }
            let queue = EventLoopDrainQueue(eventLoop: eventLoop)
            q[id] = queue
            return queue
        }
    }
}
