import Foundation
import HearthGeo

/// The account on this device: email and password.
///
/// ```swift
/// let uid = try await session.signUp(email: "ann@example.com", password: "secret123")
/// ```
public protocol SessionRepository: Sendable {
    /// The signed-in user's id, if any.
    func currentUserID() async -> String?
    /// Creates an account and signs it in; returns its uid. ``AppError/emailInUse`` when the email is taken.
    func signUp(email: String, password: String) async throws(AppError) -> String
    /// Signs in; returns the uid. ``AppError/wrongCredentials`` when email and password do not match.
    func signIn(email: String, password: String) async throws(AppError) -> String
    /// Signs out on this device.
    func signOut() async
}

/// Couches (`/couches`, `/couchLocations`).
///
/// ```swift
/// let id = try await couches.create(draft)                 // as its host
/// let around = try await couches.couches(near: point, radiusMeters: 5_000)
/// ```
public protocol CouchRepository: Sendable {
    /// Lists a new couch as the signed-in user (its host); returns its id.
    func create(_ draft: CouchDraft) async throws(AppError) -> String
    /// Replaces a couch's text, address and capacity (host only); photos and creation time stay.
    func update(_ couchID: String, with draft: CouchDraft) async throws(AppError)
    /// One couch; nil if there is none with that id.
    func couch(_ couchID: String) async throws(AppError) -> Couch?
    /// The couches of `city` (exactly as the geocoder names it), newest first.
    func couches(inCity city: String) async throws(AppError) -> [Couch]
    /// The couches within `radiusMeters` of `center`, nearest first.
    func couches(near center: GeoPoint, radiusMeters: Double) async throws(AppError) -> [NearbyCouch]
    /// The couches `hostID` offers, newest first.
    func couches(ofHost hostID: String) async throws(AppError) -> [Couch]
}

/// Couch photos in storage (`couches/{couchId}/{photoId}.jpg`), indexed by a trigger.
public protocol PhotoRepository: Sendable {
    /// Uploads `jpeg` as a new photo of the couch (its host only) and waits until the trigger filled in its URL.
    /// ``AppError/photoNotProcessed`` when it does not within the repository's patience.
    func upload(jpeg: Data, toCouch couchID: String) async throws(AppError) -> CouchPhoto
}

/// The `geocode` callable: an address → its city and position.
public protocol GeocodingService: Sendable {
    /// Where `address` is. ``AppError/addressNotFound`` when nothing matches, ``AppError/unavailable(_:)`` with
    /// ``ExternalService/geocoder`` when the geocoder is down.
    func geocode(_ address: String) async throws(AppError) -> Place
}

/// Reservations: the `reserve` and `cancelReservation` callables and what they wrote.
///
/// ```swift
/// let outcome = try await reservations.reserve(couchID: "c1", stay: DayRange(from: a, to: b), guests: 2)
/// // or AppError.reservationRefused(.overlap(nights: [...]))
/// ```
public protocol ReservationService: Sendable {
    /// `reserve`: holds the stay's nights and opens a conversation with the host; refusals are
    /// ``AppError/reservationRefused(_:)``.
    func reserve(couchID: String, stay: DayRange, guests: Int) async throws(AppError) -> ReservationOutcome
    /// `cancelReservation` (guest or host): frees the nights; ``AppError/alreadyCancelled`` the second time.
    func cancel(reservationID: String) async throws(AppError)
    /// One reservation the user may read (as guest or host); nil if there is none.
    func reservation(_ reservationID: String) async throws(AppError) -> Reservation?
    /// The reservations listed for `uid` (`/userReservations/{uid}`), latest stay first.
    func reservations(of uid: String) async throws(AppError) -> [Reservation]
    /// The nights of a couch held by confirmed reservations (`/reservedNights/{couchId}`).
    func reservedNights(of couchID: String) async throws(AppError) -> Set<Day>
}

/// Conversations between guests and hosts, opened only by `reserve`, and their messages.
///
/// ```swift
/// for try await list in conversations.conversations(of: uid) { show(list) }
/// try await conversations.send("See you Friday!", in: conversationID, from: uid)
/// ```
public protocol ConversationRepository: Sendable {
    /// The user's conversations, newest activity first, again after every change, until the consumer stops.
    func conversations(of uid: String) -> AsyncThrowingStream<[Conversation], any Error>
    /// One conversation (members only); nil if there is none.
    func conversation(_ conversationID: String) async throws(AppError) -> Conversation?
    /// A conversation's messages, oldest first, again after every change, until the consumer stops.
    func messages(in conversationID: String) -> AsyncThrowingStream<[Message], any Error>
    /// Writes a message and the conversation's `lastMessage` in one update, as `uid` (a member).
    func send(_ text: String, in conversationID: String, from uid: String) async throws(AppError)
}

/// Ratings (`/ratings/{couchId}`) and their summaries (`/ratingSummaries/{couchId}`).
public protocol RatingRepository: Sendable {
    /// A couch's ratings, newest first.
    func ratings(of couchID: String) async throws(AppError) -> [Rating]
    /// A couch's summary (``RatingSummary/empty`` before the first rating).
    func summary(of couchID: String) async throws(AppError) -> RatingSummary
    /// Writes `/ratings/{couchId}/{uid}` for the guest's ended stay `reservationID`; the rules refuse anything else.
    func rate(couchID: String, reservationID: String, stars: Int, text: String?, as uid: String) async throws(AppError)
}

/// A couch's smart home: its switches, the `setSwitch` and `runWeatherWatcher` callables, and the watcher's log.
public protocol SmartHomeService: Sendable {
    /// The couch's switches (host only), in key order.
    func switches(of couchID: String) async throws(AppError) -> [SmartSwitch]
    /// Connects an openHAB item to the couch (host only); returns the new switch.
    func addSwitch(_ type: SmartSwitch.Kind, item: String, to couchID: String) async throws(AppError) -> SmartSwitch
    /// Saves a switch's watcher settings (host only).
    func saveWatcher(_ watcher: Watcher, switchID: String, of couchID: String) async throws(AppError)
    /// `setSwitch`: turns a switch on or off; returns the state openHAB reports back.
    func setSwitch(_ switchID: String, of couchID: String, on: Bool) async throws(AppError) -> String
    /// `runWeatherWatcher`: the hourly job's work for this couch, now.
    func runWeatherWatcher(couchID: String) async throws(AppError) -> WatcherRun
    /// The newest `limit` log entries of the couch, newest first.
    func log(of couchID: String, limit: Int) async throws(AppError) -> [SwitchLogEntry]
}

/// Every repository the app uses, so screens take one value (Hearth-backed in the app, in memory in tests).
public struct Repositories: Sendable {
    /// The account on this device.
    public var session: any SessionRepository
    /// Couches.
    public var couches: any CouchRepository
    /// Couch photos.
    public var photos: any PhotoRepository
    /// Address search.
    public var geocoder: any GeocodingService
    /// Reservations.
    public var reservations: any ReservationService
    /// Conversations and messages.
    public var conversations: any ConversationRepository
    /// Ratings.
    public var ratings: any RatingRepository
    /// Switches and the watcher.
    public var smartHome: any SmartHomeService

    /// Repositories from their parts.
    public init(
        session: any SessionRepository, couches: any CouchRepository, photos: any PhotoRepository, geocoder: any GeocodingService,
        reservations: any ReservationService, conversations: any ConversationRepository, ratings: any RatingRepository,
        smartHome: any SmartHomeService
    ) {
        self.session = session
        self.couches = couches
        self.photos = photos
        self.geocoder = geocoder
        self.reservations = reservations
        self.conversations = conversations
        self.ratings = ratings
        self.smartHome = smartHome
    }
}
