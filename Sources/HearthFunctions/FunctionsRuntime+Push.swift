import Foundation
import HearthDatabase
import HearthMessaging
import HearthStore

extension FunctionsRuntime {
    /// The retry policy of a push that reached no device: backoff from 10 s (or the provider's `Retry-After`)
    /// doubling to an hour, for what is left of ``QueuedPush/maxAttempts``.
    static func pushPolicy(attemptsBefore: Int, retryAfter: Double?) -> RetryPolicy {
        let initial = max(10, retryAfter ?? 0)
        return RetryPolicy(
            maxAttempts: max(1, QueuedPush.maxAttempts - attemptsBefore), initialBackoff: .milliseconds(Int64(initial * 1000)),
            maxBackoff: .seconds(3600))
    }

    /// Delivers one `$push` event: sends it, then settles it.
    ///
    /// - Every device reached (or its token found invalid and removed): done.
    /// - No device reached, and some worth retrying: the event fails with the providers' reasons and is retried
    ///   with backoff (``pushPolicy(attemptsBefore:retryAfter:)``), a dead letter after the last attempt.
    /// - No device reached, none worth retrying: a dead letter at once, with the reasons.
    /// - Some reached, some not: done, and in one transaction of its namespace a new event for the devices
    ///   worth retrying (due after the backoff; a dead letter if the attempts are used up) and a dead letter for
    ///   the devices refused, so nobody gets the notification twice.
    func deliverPush(_ event: OutboxEvent, from queue: String, database: DatabaseService) async -> OutboxDispatcher.RunResult {
        guard let messaging else {
            return .failure(
                "Push notifications are not configured on this server (APNs or FCM credentials)",
                Self.pushPolicy(attemptsBefore: 0, retryAfter: 60))
        }
        let push: QueuedPush
        do {
            push = try QueuedPush(payload: event.payload)
        } catch {
            return .failure("Unreadable push event: \(error)", .never)
        }
        let report: PushReport
        do {
            switch push.recipients {
            case .target(let target): report = try await messaging.send(push.notification, to: target)
            case .tokens(let tokens): report = try await messaging.send(push.notification, toTokens: tokens)
            }
        } catch is CancellationError where Task.isCancelled {
            return .interrupted
        } catch let error as PushError {
            return .failure(error.message, .never)
        } catch {
            return .failure("Cannot read the devices: \(error)", Self.pushPolicy(attemptsBefore: push.attempts, retryAfter: nil))
        }
        if report.retryable.isEmpty && report.rejected.isEmpty { return .success }
        let reached = report.delivered + report.removed.count
        let retryAfter = report.retryable.compactMap(\.retryAfter).max()
        if reached == 0 && report.rejected.isEmpty {
            return .failure(Self.reasons(report.retryable), Self.pushPolicy(attemptsBefore: push.attempts, retryAfter: retryAfter))
        }
        if reached == 0 && report.retryable.isEmpty { return .failure(Self.reasons(report.rejected), .never) }
        // Mixed: carry on for the devices not reached, as events of their own.
        let attempts = push.attempts + event.attempts + 1
        let now = clock()
        let policy = Self.pushPolicy(attemptsBefore: 0, retryAfter: retryAfter)
        let retry = QueuedPush(push.notification, to: .tokens(report.retryable.map(\.token)), attempts: attempts)
        let refused = QueuedPush(push.notification, to: .tokens(report.rejected.map(\.token)), attempts: attempts)
        let (retryReasons, refusedReasons) = (Self.reasons(report.retryable), Self.reasons(report.rejected))
        do {
            try await database.withNamespace(String(queue.dropFirst(3))) { namespace in
                try await namespace.database.store.write { tx in
                    if !report.retryable.isEmpty {
                        let id = try tx.enqueueEvent(function: QueuedPush.function, payload: retry.payload, at: now + policy.backoffMillis(afterAttempts: attempts))
                        if attempts >= QueuedPush.maxAttempts { try tx.buryEvent(id, attempts: attempts, error: retryReasons) }
                    }
                    if !report.rejected.isEmpty {
                        let id = try tx.enqueueEvent(function: QueuedPush.function, payload: refused.payload, at: now)
                        try tx.buryEvent(id, attempts: attempts, error: refusedReasons)
                    }
                }
            }
        } catch {
            // Not recorded: the whole push runs again (devices already reached get it a second time, which beats
            // losing it for the others).
            return .failure("Cannot record the devices left to send to: \(error)", Self.pushPolicy(attemptsBefore: push.attempts, retryAfter: nil))
        }
        return .success
    }

    /// The failures' reasons, one per distinct reason with how many devices gave it.
    static func reasons(_ failures: [PushReport.Failure]) -> String {
        var counts: [String: Int] = [:]
        for f in failures { counts[f.reason, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value) device\($0.value == 1 ? "" : "s"))" }.joined(separator: "; ")
    }
}

extension FunctionsRuntime {
    /// Queues a push in the default database's outbox (the admin API's `"queue": true`).
    package func queue(_ notification: PushNotification, to target: PushTarget, database: DatabaseService) async throws {
        guard let messaging else { throw PushError("Push notifications are not configured on this server") }
        let admin = AdminMessaging(service: messaging, database: database, defaultNamespace: defaultNamespace)
        try await admin.send(notification, to: target)
    }
}
