import Synchronization

/// Which functions an auth or storage change must enqueue, installed once the server knows its
/// functions. The events go into the outbox of the same transaction as the change.
public final class EventHook: Sendable {
    /// The functions to enqueue for account and object events, and how to wake the dispatcher.
    public struct Functions: Sendable {
        /// Functions to run when something is created (an account; a finalized object).
        public var created: [String]
        /// Functions to run when something is deleted.
        public var deleted: [String]
        /// Told after events were enqueued (may come before their transaction commits; the
        /// dispatcher also polls).
        public var wake: @Sendable () -> Void

        /// The functions to enqueue on creation and deletion, and the dispatcher's wake-up.
        public init(created: [String], deleted: [String], wake: @escaping @Sendable () -> Void) {
            self.created = created
            self.deleted = deleted
            self.wake = wake
        }
    }

    private let installed = Mutex<Functions?>(nil)

    /// A hook with nothing installed: no events are enqueued until ``install(_:)``.
    public init() {}

    /// Installs (or replaces) the functions; changes after this enqueue events for them.
    public func install(_ functions: Functions) { installed.withLock { $0 = functions } }

    /// The functions installed, nil before ``install(_:)``.
    public var functions: Functions? { installed.withLock { $0 } }
}
