import HearthCore
import HearthDatabase
/// Public: the notifications, targets and reports functions handle are HearthMessaging's.
public import HearthMessaging
import HearthStore

/// Push notifications with admin access, for functions.
///
/// ```swift
/// try await context.messaging?.send(PushNotification(title: "New message", body: text), to: .user(hostID))
/// ```
///
/// ``send(_:to:namespace:)`` is durable: it commits the push to a database's outbox and returns; the server
/// delivers it, retries it when a provider fails, and keeps what cannot be delivered as a dead letter. To send
/// only if some writes commit, queue the push with them: ``AtomicWrites/send(_:to:)`` inside
/// ``AdminDatabase/atomically(namespace:_:)``.
public struct AdminMessaging: Sendable {
    let service: MessagingService
    let database: DatabaseService
    let defaultNamespace: String

    /// Queues `notification` for `target` in the outbox of `namespace` (default: the functions' database).
    /// Throws a ``PushError`` for a notification or target that cannot be sent (nothing is queued).
    public func send(_ notification: PushNotification, to target: PushTarget, namespace: String? = nil) async throws {
        try notification.validate()
        try target.validate()
        var request = WriteRequest(path: .root, operation: .update([], priorities: []))
        request.events = [WriteRequest.QueuedEvent(function: QueuedPush.function, payload: QueuedPush(notification, to: .target(target)).payload)]
        let name = namespace ?? defaultNamespace
        _ = try await database.withNamespace(name) { try await $0.database.write(request) }
    }

    /// Sends now, without the outbox, and reports what happened to each device: for a test notification,
    /// or when the caller handles failures itself. Nothing is retried.
    public func sendNow(_ notification: PushNotification, to target: PushTarget) async throws -> PushReport {
        try await service.send(notification, to: target)
    }

    /// The user's registered devices, most recent first.
    public func devices(of uid: String) async throws -> [DeviceRegistration] {
        try await service.devices.devices(uid: uid)
    }
}
