public import HearthStore
public import Logging
public import ServiceLifecycle
import Synchronization

/// Counts clicks in memory and hands them to the store in batches, so a redirect costs a
/// dictionary increment, not a commit. A crash loses the clicks not yet flushed (at most about
/// one flush interval's worth); a graceful shutdown flushes them.
public final class LinkClickRecorder: Sendable {
    private let buffer = Mutex<[LinkCounterKey: Int64]>([:])

    /// A recorder with nothing pending.
    public init() {}

    /// Adds `n` to a counter in memory; the next flush writes it.
    public func record(_ key: LinkCounterKey, by n: Int64 = 1) {
        buffer.withLock { $0[key, default: 0] += n }
    }

    /// Takes every pending increment.
    func drain() -> [LinkCounterKey: Int64] {
        buffer.withLock { p in
            let out = p
            p = [:]
            return out
        }
    }

    /// The increments of one link not yet flushed, on days `fromDay...`.
    func pending(suffix: String, fromDay: Int64) -> [LinkCounterKey: Int64] {
        buffer.withLock { $0.filter { $0.key.suffix == suffix && $0.key.day >= fromDay } }
    }

    /// Drops the pending increments of one link (it was deleted).
    func discard(suffix: String) {
        buffer.withLock { p in p = p.filter { $0.key.suffix != suffix } }
    }

    /// Writes the pending increments in one transaction; on failure they are kept for the next try.
    public func flush(to store: any LinkStore) async throws {
        let batch = drain()
        guard !batch.isEmpty else { return }
        do {
            try await store.addCounts(batch)
        } catch {
            buffer.withLock { p in for (k, n) in batch { p[k, default: 0] += n } }
            throw error
        }
    }
}

/// Flushes a ``LinkClickRecorder`` every `interval` and once more on graceful shutdown.
public struct LinkClickFlusher: Service {
    let recorder: LinkClickRecorder
    let store: any LinkStore
    let interval: Duration
    let logger: Logger

    /// A flusher that empties `recorder` into `store`; nothing runs until the service group runs it.
    /// - Parameters:
    ///   - recorder: the buffer to empty, normally ``LinkService/clicks``.
    ///   - store: where the counts are added: the store the ``LinkService`` reads them back from, or they never show.
    ///   - interval: the time between flushes; a crash loses at most about this much counting.
    ///   - logger: where a failed flush is reported (its counts stay in the buffer for the next one).
    public init(recorder: LinkClickRecorder, store: any LinkStore, interval: Duration = .seconds(1), logger: Logger) {
        self.recorder = recorder
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Flushes every `interval` until graceful shutdown or cancellation, then flushes once more and returns. A failed
    /// flush is logged and tried again at the next tick, so this never throws and never ends early.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }

    func flush() async {
        do {
            try await recorder.flush(to: store)
        } catch {
            logger.error("could not save link click counts; they are kept for the next try", metadata: ["hearth.error": "\(error)"])
        }
    }
}
