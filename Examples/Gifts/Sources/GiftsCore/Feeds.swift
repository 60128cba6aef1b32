import Foundation

/// The live listeners of the in-memory world: continuations grouped by topic (a uid, a limit).
struct Feeds<Element: Sendable> {
    typealias Continuation = AsyncThrowingStream<Element, any Error>.Continuation

    private var byTopic: [String: [UUID: Continuation]] = [:]

    /// The topics someone listens to.
    var topics: [String] { Array(byTopic.keys) }

    /// Registers `continuation` under `topic`; returns the id that removes it.
    mutating func add(_ continuation: Continuation, to topic: String) -> UUID {
        let id = UUID()
        byTopic[topic, default: [:]][id] = continuation
        return id
    }

    /// Forgets one listener.
    mutating func remove(_ id: UUID, from topic: String) {
        byTopic[topic]?[id] = nil
        if byTopic[topic]?.isEmpty == true { byTopic[topic] = nil }
    }

    /// Sends `value` to everyone listening to `topic`.
    func send(_ value: Element, to topic: String) {
        for continuation in (byTopic[topic] ?? [:]).values { continuation.yield(value) }
    }
}
