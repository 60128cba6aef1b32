import Synchronization

/// Bytes that realtime connections hold for messages still arriving (WebSocket fragments and
/// realtime split messages), counted across every connection of the server.
///
/// Each connection bounds its own partial message (1 MiB before it has signed in); this bounds
/// their sum, so many connections that each start a message and never finish it cannot make the
/// server hold more than `limit` bytes for them. A connection that would go past it is closed.
final class PartialMessageBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let used = Atomic(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes held now.
    var inUse: Int { used.load(ordering: .relaxed) }

    /// Takes `count` more bytes; false (and nothing taken) when that would pass the limit.
    func reserve(_ count: Int) -> Bool {
        let total = used.wrappingAdd(count, ordering: .relaxed).newValue
        guard total > limit else { return true }
        used.wrappingSubtract(count, ordering: .relaxed)
        return false
    }

    /// Gives back `count` bytes taken by ``reserve(_:)``.
    func release(_ count: Int) {
        used.wrappingSubtract(count, ordering: .relaxed)
    }
}
