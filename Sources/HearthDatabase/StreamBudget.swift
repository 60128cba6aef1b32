import Synchronization

/// The bytes of events one server-sent event stream has waiting for its client.
///
/// The hub takes each event's size when it hands the event over and the stream gives it back once
/// the event is written. A client that does not read (or reads too slowly) stops the stream's
/// writes, so its events pile up; past `limit` bytes the stream is dropped, as Firebase drops a
/// consumer that cannot keep up, instead of the server holding every change for it.
package final class StreamBudget: Sendable {
    /// The most bytes waiting at once.
    let limit: Int
    private let held = Atomic(0)
    /// Called when an event would pass the limit (closes the client's connection).
    private let exceeded: @Sendable () -> Void

    package init(limit: Int, exceeded: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.exceeded = exceeded
    }

    /// Bytes waiting now.
    var waiting: Int { held.load(ordering: .relaxed) }

    /// Counts `count` more bytes waiting; false when that passes the limit (and the stream must go).
    func take(_ count: Int) -> Bool {
        guard held.wrappingAdd(count, ordering: .relaxed).newValue > limit else { return true }
        exceeded()
        return false
    }

    /// `count` bytes were written (or skipped).
    package func give(_ count: Int) {
        held.wrappingSubtract(count, ordering: .relaxed)
    }
}
