import NIOCore
import Synchronization

/// Runs realtime outboxes' drains on their event loop, one job for every outbox queued while the
/// previous job was pending: a change pushed to 10,000 connections costs a handful of event-loop
/// jobs instead of 10,000.
final class EventLoopDrainQueue: Sendable {
    private struct Queue {
        var scheduled = false
        var outboxes: [RealtimeOutbox] = []
    }

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

    /// On the event loop: drains what was queued, then yields the loop if more arrived meanwhile
    /// (other channels' I/O runs in between).
    private func run() {
        let batch = queue.withLock { q -> [RealtimeOutbox] in
            defer { q.outboxes = [] }
            return q.outboxes
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
