import HearthStore

/// What the database needs from the functions runtime: the database triggers of a namespace,
/// enqueued in the same transaction as the writes that fire them, and whom to wake once a commit
/// enqueued some. The registry asks each time it opens a namespace.
package protocol NamespaceTriggers: Sendable {
    /// The triggers whose events a write in `namespace` enqueues (empty: none).
    func triggers(for namespace: String) -> [DatabaseTrigger]

    /// Called when `namespace` opens on `store`; returns what to call after a commit enqueued
    /// events (nil when the namespace has no triggers).
    func opened(_ namespace: String, store: any DatabaseStore) -> (@Sendable () -> Void)?
}
