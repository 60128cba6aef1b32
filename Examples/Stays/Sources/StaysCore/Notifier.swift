import Foundation

/// A local notification to show on a day (the platform picks the time zone: the morning of that day, locally).
public struct Reminder: Sendable, Hashable, Identifiable {
    /// Identifies it, to replace or cancel it (the reservation's id).
    public var id: String
    /// The day to remind on.
    public var day: Day
    /// The hour of that day (0–23, the user's local time).
    public var hour: Int
    /// The notification's title.
    public var title: String
    /// The notification's text.
    public var body: String

    /// A reminder.
    public init(id: String, day: Day, hour: Int = 9, title: String, body: String) {
        self.id = id
        self.day = day
        self.hour = hour
        self.title = title
        self.body = body
    }
}

/// Schedules local notifications (`UNUserNotificationCenter` in the app).
///
/// ```swift
/// try await notifier.schedule(Reminder(id: reservationID, day: stay.from, title: "Your stay starts today", body: couch.title))
/// ```
public protocol Notifier: Sendable {
    /// Schedules `reminder`, replacing one with the same id.
    func schedule(_ reminder: Reminder) async throws(AppError)
    /// Removes the reminder with this id, if any.
    func cancel(id: String) async
}

/// A ``Notifier`` that records what it was asked, for tests and previews.
public actor RecordingNotifier: Notifier {
    /// The reminders scheduled and not cancelled, by id.
    public private(set) var scheduled: [String: Reminder] = [:]
    private var failure: AppError?

    /// An empty recorder.
    public init() {}

    /// The next ``schedule(_:)`` fails with `error` (notifications not allowed, say).
    public func failNextWith(_ error: AppError) { failure = error }

    /// Records `reminder`.
    public func schedule(_ reminder: Reminder) async throws(AppError) {
        if let failure {
            self.failure = nil
            throw failure
        }
        scheduled[reminder.id] = reminder
    }

    /// Forgets the reminder with this id.
    public func cancel(id: String) async { scheduled[id] = nil }
}
