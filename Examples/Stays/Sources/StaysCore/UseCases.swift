import Foundation
import HearthGeo

/// A circle of the map: what the Trips screen shows.
public struct MapRegion: Sendable, Hashable {
    /// The map's center.
    public var center: GeoPoint
    /// How far from the center couches are shown, in meters.
    public var radiusMeters: Double

    /// A region of `radiusMeters` around `center`.
    public init(center: GeoPoint, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// The radius a city search shows.
    public static let cityRadiusMeters = 15_000.0
}

/// What a city search found: the place (to move the map) and the couches of its city.
public struct CitySearch: Sendable, Hashable {
    /// The geocoded place.
    public var place: Place
    /// The city's couches, nearest to the place first.
    public var couches: [NearbyCouch]

    /// A search result.
    public init(place: Place, couches: [NearbyCouch]) {
        self.place = place
        self.couches = couches
    }
}

/// A reservation made: what `reserve` answered and the first-day reminder, if it could be scheduled.
public struct Booking: Sendable, Hashable {
    /// The reservation and its conversation.
    public var outcome: ReservationOutcome
    /// The reminder scheduled for the first day; nil when the notifier refused (the reservation holds anyway).
    public var reminder: Reminder?

    /// A booking.
    public init(outcome: ReservationOutcome, reminder: Reminder?) {
        self.outcome = outcome
        self.reminder = reminder
    }
}

/// The app's actions, over any `Repositories` (Hearth-backed or in memory) and a ``Notifier``.
///
/// ```swift
/// let useCases = UseCases(.hearth(app), notifier: notifier)
/// _ = try await useCases.signIn(email: "ann@example.com", password: "secret123")
/// let booking = try await useCases.reserve(couch, stay: DayRange(from: a, to: b), guests: 2)
/// ```
public struct UseCases: Sendable {
    /// Where the data comes from.
    public let repositories: Repositories
    /// Where reminders go.
    public let notifier: any Notifier
    /// The clock (today, ended stays).
    public let now: @Sendable () -> Date
    /// The watcher log entries the smart home screen shows.
    public static let logLimit = 50
    /// The largest photo storage accepts, in bytes (exclusive).
    public static let maxPhotoBytes = 10 * 1024 * 1024

    /// Use cases over `repositories`; `notifier` and `now` are injectable for tests.
    public init(_ repositories: Repositories, notifier: any Notifier = RecordingNotifier(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.repositories = repositories
        self.notifier = notifier
        self.now = now
    }

    /// Today, UTC (the server's "today").
    public var today: Day { Day(now()) }

    /// The signed-in user's id, or ``AppError/notSignedIn``.
    public func signedIn() async throws(AppError) -> String {
        guard let uid = await repositories.session.currentUserID() else { throw .notSignedIn }
        return uid
    }

    // MARK: Account

    /// Creates an account; the email is trimmed, the password needs 6 characters.
    public func signUp(email: String, password: String) async throws(AppError) -> String {
        let email = email.trimmingCharacters(in: .whitespaces)
        guard email.split(separator: "@").count == 2 else { throw .invalidInput("Enter a valid email address.") }
        guard password.count >= 6 else { throw .invalidInput("Choose a password of at least 6 characters.") }
        return try await repositories.session.signUp(email: email, password: password)
    }

    /// Signs in with email and password.
    public func signIn(email: String, password: String) async throws(AppError) -> String {
        let email = email.trimmingCharacters(in: .whitespaces)
        guard !email.isEmpty, !password.isEmpty else { throw .invalidInput("Enter your email and password.") }
        return try await repositories.session.signIn(email: email, password: password)
    }

    // MARK: Browsing

    /// The couches in `region`, nearest first.
    public func couches(in region: MapRegion) async throws(AppError) -> [NearbyCouch] {
        guard region.radiusMeters > 0 else { return [] }
        return try await repositories.couches.couches(near: region.center, radiusMeters: region.radiusMeters)
    }

    /// Geocodes `text` (a city or an address) and lists the couches of its city, nearest to it first.
    public func searchCity(_ text: String) async throws(AppError) -> CitySearch {
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { throw .invalidInput("Enter a city.") }
        let place = try await repositories.geocoder.geocode(query)
        let couches = try await repositories.couches.couches(inCity: place.city)
            .map { NearbyCouch(couch: $0, distance: haversineMeters(place.location, $0.location)) }
            .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
        return CitySearch(place: place, couches: couches)
    }

    /// A couch's calendar as of today.
    public func calendar(of couchID: String) async throws(AppError) -> ReservationCalendar {
        ReservationCalendar(reservedNights: try await repositories.reservations.reservedNights(of: couchID), today: today)
    }

    // MARK: Reservations

    /// Reserves `stay` for `guests` on `couch`, after the checks the server would refuse anyway (dates, guests,
    /// capacity, own couch), then schedules a reminder for the first day. A refusal is
    /// ``AppError/reservationRefused(_:)``.
    public func reserve(_ couch: Couch, stay: DayRange, guests: Int) async throws(AppError) -> Booking {
        guard !stay.isEmpty else { throw .invalidInput("Pick a check-out day after the check-in day.") }
        guard guests >= 1 else { throw .invalidInput("At least one guest stays.") }
        let uid = try await signedIn()
        guard couch.hostId != uid else { throw .reservationRefused(.ownCouch) }
        if let refusal = ReservationCalendar(reservedNights: [], today: today).problem(with: stay)?.refusal { throw .reservationRefused(refusal) }
        guard guests <= couch.capacity else { throw .reservationRefused(.capacity) }
        let outcome = try await repositories.reservations.reserve(couchID: couch.id, stay: stay, guests: guests)
        let reminder = Reminder(
            id: outcome.reservationId, day: stay.from, title: "Your stay starts today",
            body: "\(couch.title), \(couch.address). Check in today; check out \(stay.to).")
        do {
            try await notifier.schedule(reminder)
            return Booking(outcome: outcome, reminder: reminder)
        } catch {
            return Booking(outcome: outcome, reminder: nil)
        }
    }

    /// Cancels a reservation (as its guest or host) and its reminder.
    public func cancel(_ reservation: Reservation) async throws(AppError) {
        try await repositories.reservations.cancel(reservationID: reservation.id)
        await notifier.cancel(id: reservation.id)
    }

    /// The user's stays as a guest, latest first.
    public func myTrips() async throws(AppError) -> [Reservation] {
        let uid = try await signedIn()
        return try await repositories.reservations.reservations(of: uid).filter { $0.guestId == uid }
    }

    // MARK: Hosting

    /// The couches the user offers, newest first.
    public func myCouches() async throws(AppError) -> [Couch] {
        try await repositories.couches.couches(ofHost: try await signedIn())
    }

    /// Whether `data` starts as a JPEG does (`FF D8 FF`).
    public static func isJPEG(_ data: Data) -> Bool { data.starts(with: [0xFF, 0xD8, 0xFF]) }

    /// Adds a photo to the user's couch: a JPEG under ``maxPhotoBytes``; returns it with its URL.
    public func addPhoto(_ jpeg: Data, to couchID: String) async throws(AppError) -> CouchPhoto {
        guard Self.isJPEG(jpeg) else { throw .invalidInput("Photos must be JPEG images.") }
        guard jpeg.count < Self.maxPhotoBytes else { throw .invalidInput("Photos must be smaller than 10 MB.") }
        _ = try await signedIn()
        return try await repositories.photos.upload(jpeg: jpeg, toCouch: couchID)
    }

    // MARK: Conversations

    /// Sends `text` (trimmed, 1–2,000 characters) in a conversation as the user.
    public func send(_ text: String, in conversationID: String) async throws(AppError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .invalidInput("Write a message first.") }
        guard text.utf16.count <= Message.maxLength else { throw .invalidInput("A message is at most \(Message.maxLength) characters.") }
        try await repositories.conversations.send(text, in: conversationID, from: try await signedIn())
    }

    // MARK: Ratings

    /// The user's stay on `couchID` a rating would be for: confirmed, ended, not rated; the newest such stay. Else
    /// ``AppError/ratingRefused(_:)`` with the reason of the closest stay.
    public func rateableStay(on couchID: String) async throws(AppError) -> Reservation {
        let uid = try await signedIn()
        let mine = try await repositories.reservations.reservations(of: uid).filter { $0.guestId == uid && $0.couchId == couchID }
        guard !mine.isEmpty else { throw .ratingRefused(.noStay) }
        let confirmed = mine.filter { $0.status == .confirmed }
        guard !confirmed.isEmpty else { throw .ratingRefused(.cancelled) }
        let ended = confirmed.filter { $0.hasEnded(at: now()) }
        guard !ended.isEmpty else { throw .ratingRefused(.notEnded) }
        let current = try await repositories.ratings.ratings(of: couchID).first { $0.id == uid }
        let open = ended.filter { $0.ratedAt == nil && $0.id != current?.reservationId }
        guard let stay = open.max(by: { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }) else { throw .ratingRefused(.alreadyRated) }
        return stay
    }

    /// Rates the user's stay on `couchID` (see ``rateableStay(on:)``): 1–5 stars, optional text up to 1,000
    /// characters (blank: none).
    public func rate(_ couchID: String, stars: Int, text: String) async throws(AppError) {
        guard Rating.starRange.contains(stars) else { throw .invalidInput("Give 1 to 5 stars.") }
        let words = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard words.utf16.count <= Rating.maxTextLength else { throw .invalidInput("A review is at most \(Rating.maxTextLength) characters.") }
        let stay = try await rateableStay(on: couchID)
        try await repositories.ratings.rate(
            couchID: couchID, reservationID: stay.id, stars: stars, text: words.isEmpty ? nil : words, as: try await signedIn())
    }
}
